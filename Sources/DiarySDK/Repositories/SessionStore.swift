import Foundation

/// Where a backend keeps the signed-in session between launches, for automatic sign-in.
///
/// Two stores ship: ``InMemorySessionStore`` (forgets on exit; the default) and ``FileSessionStore`` (a JSON file
/// with owner-only permissions, replaced durably). On Apple platforms an app typically writes a keychain-backed one:
///
/// ```swift
/// struct KeychainSessionStore: SessionStore {
///     let item: any KeychainItem   // your wrapper of SecItemCopyMatching / SecItemAdd / SecItemDelete
///
///     func load() async throws -> StoredSession? {
///         guard let data = try item.read() else { return nil }
///         return try JSONDecoder().decode(StoredSession.self, from: data)
///     }
///
///     func save(_ session: StoredSession?) async throws {
///         if let session { try item.write(JSONEncoder().encode(session)) } else { try item.delete() }
///     }
/// }
/// ```
public protocol SessionStore: Sendable {
    /// The saved session, if any.
    /// - Throws: When the store cannot be read.
    func load() async throws -> StoredSession?

    /// Saves a session, or clears it when `nil`.
    /// - Parameter session: The session to keep.
    /// - Throws: When the store cannot be written.
    func save(_ session: StoredSession?) async throws
}

/// A session store that keeps the session in memory only.
public final class InMemorySessionStore: SessionStore {
    private let session = Locked<StoredSession?>(nil)

    /// Creates an empty store.
    public init() {}

    /// The session kept so far.
    public func load() async throws -> StoredSession? { session.current }

    /// Keeps (or clears) the session.
    public func save(_ session: StoredSession?) async throws {
        self.session.withLock { $0 = session }
    }
}

/// Verifies identity tokens from external providers (Sign in with Apple, Google…) for local backends and servers.
///
/// The verifier returns the provider's stable subject for the token, plus the email it vouches for, if any.
public protocol IdentityTokenVerifier: Sendable {
    /// Checks a token.
    /// - Parameters:
    ///   - token: The token as the provider issued it.
    ///   - provider: The provider's name, such as `"apple"`.
    /// - Returns: The subject and email.
    /// - Throws: ``DiaryError`` `.unauthenticated` when the token is not valid.
    func verify(token: String, provider: String) async throws -> VerifiedIdentity
}

/// What an ``IdentityTokenVerifier`` vouches for.
///
/// Only an email the provider marks as verified (``isEmailVerified``) links the identity to an existing account with
/// that email; an unverified one is never trusted, so a provider that passes unverified addresses cannot be used to
/// take over a password account.
public struct VerifiedIdentity: Hashable, Sendable {
    /// The provider's stable user id.
    public var subject: String
    /// The email address, if the provider shares it.
    public var email: String?
    /// Whether the provider says it verified ``email`` (an OpenID Connect `email_verified` claim that is `true`).
    public var isEmailVerified: Bool

    /// Creates a verified identity.
    /// - Parameters:
    ///   - subject: The provider's stable user id.
    ///   - email: The email address, if shared.
    ///   - isEmailVerified: Whether the provider verified the email; `false` unless the provider says so.
    public init(subject: String, email: String?, isEmailVerified: Bool = false) {
        self.subject = subject
        self.email = email
        self.isEmailVerified = isEmailVerified
    }
}
