@_spi(Storage) import DiarySDK
import Foundation
import PostgresNIO
import _ConnectionPoolModule

extension DiaryError {
    /// The typed error for a failure of the database or the connection to it.
    ///
    /// The message names the operation, the SQLSTATE and the server's one-line message, never a query's values or
    /// the connection's credentials; the original error is kept as ``DiaryError/underlying``.
    /// - Parameters:
    ///   - error: What the database or postgres-nio threw (a ``DiaryError`` is returned as it is).
    ///   - operation: The storage operation, such as `"posts.feed"`.
    ///   - layout: The schema, to name the index behind a unique violation.
    static func postgres(_ error: any Error, _ operation: String, layout: PostgresSchemaLayout? = nil) -> DiaryError {
        if let error = error as? DiaryError { return error }
        if error is CancellationError { return DiaryError(.cancelled, "\(operation) was cancelled", underlying: error) }
        if let error = error as? PostgresDecodingError {
            return DiaryError(.storageCorrupted, "\(operation) read a column of an unexpected type", underlying: error)
        }
        if let error = error as? ConnectionPoolError {
            return DiaryError(.unavailable, "\(operation) could not get a database connection (\(error))", retryAfter: 1, underlying: error)
        }
        guard let error = error as? PSQLError else {
            return DiaryError(.server, "\(operation) failed: \(type(of: error))", underlying: error)
        }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else {
            switch error.code {
            case .queryCancelled:
                return DiaryError(.cancelled, "\(operation) was cancelled", underlying: error)
            case .tooManyParameters:
                return DiaryError(.server, "\(operation) bound too many values for one statement", underlying: error)
            default:
                return DiaryError(
                    .unavailable, "\(operation) could not reach the database (\(error.code))", retryAfter: 1, underlying: error)
            }
        }
        let message = error.serverInfo?[.message] ?? "no message"
        switch state {
        case PostgresError.Code.uniqueViolation.raw:
            let index = error.serverInfo?[.constraintName].flatMap { layout?.index(withConstraint: $0) }
            let name = index?.declaration.name ?? "a unique index"
            return DiaryError(
                .conflict, "another row already has this value of \(name)", field: index.flatMap { conflictField[$0.declaration.name] },
                underlying: error)
        case PostgresError.Code.serializationFailure.raw, PostgresError.Code.deadlockDetected.raw:
            return DiaryError(
                .unavailable, "\(operation) kept conflicting with concurrent writes; try again", retryAfter: 1, underlying: error)
        case "22P05", "22021":
            return DiaryError(
                .invalidInput, "\(operation) was given text PostgreSQL cannot store (a NUL character)", reason: .invalidFormat,
                underlying: error)
        default:
            let isUnavailable = ["08", "53", "57"].contains(where: state.hasPrefix) || state.hasPrefix("28")
            return DiaryError(
                isUnavailable ? .unavailable : .server, "\(operation) failed in the database: \(state) \(message)",
                retryAfter: isUnavailable ? 1 : nil, underlying: error)
        }
    }

    /// The input field a unique index guards, for its violations.
    private static let conflictField: [String: String] = [
        StorageSchema.usersByNickname.name: "nickname",
        StorageSchema.credentialsByEmail.name: "email",
    ]

    /// Whether an error (or the error it wraps) is a serialisation failure or deadlock that running the
    /// transaction again can cure.
    static func isRetryablePostgresError(_ error: any Error) -> Bool {
        var current: (any Error)? = error
        while let error = current {
            if let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] {
                return state == PostgresError.Code.serializationFailure.raw || state == PostgresError.Code.deadlockDetected.raw
            }
            current = (error as? DiaryError)?.underlying
        }
        return false
    }

    /// Whether an error is, or wraps, a failure of the database or the connection (rather than a rule of the body).
    static func isPostgresFailure(_ error: any Error) -> Bool {
        var current: (any Error)? = error
        while let error = current {
            if error is PSQLError || error is PostgresDecodingError { return true }
            current = (error as? DiaryError)?.underlying
        }
        return false
    }
}
