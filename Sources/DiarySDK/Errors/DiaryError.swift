import Foundation

/// The one error every SDK operation throws.
///
/// Switch on ``code`` to decide what to do; show or log ``message``, which says what was wrong (and never
/// contains a secret). ``underlying`` keeps the lower-level error where there was one.
///
/// ```swift
/// do {
///     _ = try await sdk.diaries.write(DiaryDraft(body: text))
/// } catch let error as DiaryError where error.code == .invalidInput {
///     form.highlight(error.field, reason: error.reason)
/// }
/// ```
public struct DiaryError: Error, Sendable, CustomStringConvertible {
    /// The category of an error, stable across versions and on the wire (`"not_found"`, …).
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The wire name.
        public var rawValue: String

        /// Creates a code from its wire name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The wire name.
        public var description: String { rawValue }

        /// The thing asked for does not exist, or the caller may not know it exists.
        public static let notFound = Code(rawValue: "not_found")
        /// No one is signed in, the session expired, or the credentials are wrong.
        public static let unauthenticated = Code(rawValue: "unauthenticated")
        /// The signed-in user may not do this (someone else's content).
        public static let forbidden = Code(rawValue: "forbidden")
        /// Input broke a rule; ``DiaryError/field`` and ``DiaryError/reason`` say which and why.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The request conflicts with existing state (a taken nickname, already a member).
        public static let conflict = Code(rawValue: "conflict")
        /// Too many requests; ``DiaryError/retryAfter`` says when to try again.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// The backend cannot be reached or is overloaded; try again later.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The backend failed in a way that is not the caller's fault.
        public static let server = Code(rawValue: "server")
        /// Stored data failed its integrity checks; nothing was changed.
        public static let storageCorrupted = Code(rawValue: "storage_corrupted")
        /// The operation was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
    }

    /// Why an input was rejected, stable across versions and on the wire (`"blank"`, `"too_long"`, …).
    ///
    /// A struct with static members rather than an enum (as ``Code`` is, and as postgres-nio's `PSQLError.Code` and
    /// swift-nio's `IOError` codes are), so a later release can add a reason without breaking a caller's `switch`:
    /// match the reasons you handle and give the rest a `default`. A reason this version does not know (sent by a
    /// newer server) keeps its wire name in ``rawValue``.
    public struct Reason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The wire name.
        public var rawValue: String

        /// Creates a reason from its wire name.
        /// - Parameter rawValue: The wire name, such as `"too_long"`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The wire name.
        public var description: String { rawValue }

        /// Empty or only whitespace.
        public static let blank = Reason(rawValue: "blank")
        /// Longer than allowed.
        public static let tooLong = Reason(rawValue: "too_long")
        /// Shorter than allowed.
        public static let tooShort = Reason(rawValue: "too_short")
        /// More items than allowed (images, tags).
        public static let tooMany = Reason(rawValue: "too_many")
        /// Not in the required form (email, nickname, colour, URL).
        public static let invalidFormat = Reason(rawValue: "invalid_format")
        /// Refers to something that cannot be used here.
        public static let invalidReference = Reason(rawValue: "invalid_reference")
        /// Not allowed in this combination.
        public static let notAllowed = Reason(rawValue: "not_allowed")
        /// With ``Code/conflict``: a value that may be used only once was used before (a client-chosen id of an
        /// entry, post or comment that exists or was deleted).
        public static let alreadyUsed = Reason(rawValue: "already_used")
    }

    /// The category.
    public var code: Code
    /// What was wrong, for people.
    public var message: String
    /// For ``Code/invalidInput``: the field (`"body"`, `"images"`, `"email"`…).
    public var field: String?
    /// For ``Code/invalidInput``: why.
    public var reason: Reason?
    /// For ``Code/rateLimited`` and ``Code/unavailable``: when to try again, in seconds.
    public var retryAfter: TimeInterval?
    /// The HTTP status, when the error came from a server.
    public var httpStatus: Int?
    /// The lower-level error, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The category.
    ///   - message: What was wrong.
    ///   - field: The invalid field.
    ///   - reason: Why it is invalid.
    ///   - retryAfter: When to try again.
    ///   - httpStatus: The HTTP status.
    ///   - underlying: The lower-level error.
    public init(
        _ code: Code, _ message: String, field: String? = nil, reason: Reason? = nil, retryAfter: TimeInterval? = nil,
        httpStatus: Int? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.retryAfter = retryAfter
        self.httpStatus = httpStatus
        self.underlying = underlying
    }

    /// `code: message`, with the field when there is one.
    public var description: String {
        var text = "\(code): \(message)"
        if let field { text += " [field: \(field)\(reason.map { ", \($0.rawValue)" } ?? "")]" }
        return text
    }

    /// An invalid-input error for one field.
    /// - Parameters:
    ///   - field: The field.
    ///   - reason: Why.
    ///   - message: What was wrong.
    /// - Returns: The error.
    public static func invalid(_ field: String, _ reason: Reason, _ message: String) -> DiaryError {
        DiaryError(.invalidInput, message, field: field, reason: reason)
    }

    /// A not-found error.
    /// - Parameter what: What was not found, such as `"post 8a1c…"`.
    /// - Returns: The error.
    public static func notFound(_ what: String) -> DiaryError {
        DiaryError(.notFound, "\(what) was not found")
    }

    /// The error for an operation that needs a signed-in user.
    public static let notSignedIn = DiaryError(.unauthenticated, "no user is signed in")

    /// A forbidden error.
    /// - Parameter message: What the user may not do.
    /// - Returns: The error.
    public static func forbidden(_ message: String) -> DiaryError {
        DiaryError(.forbidden, message)
    }

    /// Wraps any error as a `DiaryError`: a `DiaryError` is returned as it is, `CancellationError` becomes
    /// ``Code/cancelled``, anything else ``Code/server`` with the error kept as ``underlying``.
    /// - Parameter error: The error.
    /// - Returns: The wrapped error.
    public static func wrapping(_ error: any Error) -> DiaryError {
        if let error = error as? DiaryError { return error }
        if error is CancellationError { return DiaryError(.cancelled, "the operation was cancelled", underlying: error) }
        return DiaryError(.server, "unexpected failure: \(error)", underlying: error)
    }
}

extension DiaryError: Equatable {
    /// Two errors are equal when their code, message, field, reason and status match (the underlying error is not
    /// compared).
    public static func == (lhs: DiaryError, rhs: DiaryError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.field == rhs.field && lhs.reason == rhs.reason
            && lhs.retryAfter == rhs.retryAfter && lhs.httpStatus == rhs.httpStatus
    }
}
