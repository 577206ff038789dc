@_spi(Storage) import DiaryPostgres
import DiarySDK
import Foundation

/// One signed-in session, as ``TokenService`` keeps it between requests.
struct ServerSession: Codable, Sendable, Equatable {
    var userID: User.ID
    var refreshJTI: String
    var accessJTI = ""
    /// The refresh token rotated away last, when, and when the pair that rotation answered was issued (a replay
    /// within the grace period signs that pair again from the ids above; no token is kept at rest).
    var previousRefreshJTI: String?
    var rotatedAt = Date.distantPast
    var rotationIssuedAt: Int?
    /// Access tokens a test declared expired (`POST /v1/_test/expire-access-tokens`).
    var expiredAccessJTIs: Set<String> = []
    /// When the current refresh token was issued (at sign-in, then at each rotation); `nil` in sessions saved before
    /// it was kept, which ``ServerSessionStore/removeSessions(refreshedBefore:)`` leaves to a store that knows better.
    var refreshedAt: Date?
}

/// Where a session stands for one access token (``ServerSessionStore/standing(of:userID:accessJTI:)``).
enum ServerSessionStanding: Sendable, Equatable {
    /// The session is there, the token's user's, and the token is not declared expired.
    case current
    /// The session is there but declared this access token expired (test mode).
    case accessExpired
    /// There is no such session for that user: it ended.
    case ended
}

/// What an atomic ``ServerSessionStore/update(_:_:)`` does with the session it read.
enum ServerSessionChange: Sendable {
    /// Leaves the session as it is.
    case keep
    /// Replaces the session.
    case save(ServerSession)
    /// Ends the session.
    case remove
}

/// Where a world's sessions live between requests: in memory (`--in-memory`), in the data directory (the file
/// store), or in the database (PostgreSQL), so sessions outlive a restart on the last two and are shared by every
/// process on one database.
///
/// ``update(_:_:)`` is the one read-modify-write: it runs its body on the current session and applies the answer
/// atomically, so two refreshes of the same token (in one process or two) cannot both rotate it.
///
/// A store of your own keeps the ``ServerSession``s by id somewhere durable, and makes ``update(_:_:)`` atomic per
/// session (a row lock, a transaction). The smallest store is an actor over a dictionary, which the suite of the
/// server's tests runs like the others:
///
/// ```swift
/// actor MySessionStore: ServerSessionStore {
///     private var sessions: [String: ServerSession] = [:]   // a real store keeps them somewhere durable
///     func create(_ session: ServerSession, id: String) async throws { sessions[id] = session }
///     func session(_ id: String) async throws -> ServerSession? { sessions[id] }
///     func update<Result: Sendable>(
///         _ id: String, _ body: @Sendable (ServerSession?) -> (ServerSessionChange, Result)
///     ) async throws -> Result {
///         let (change, result) = body(sessions[id])   // no suspension between read and write: atomic
///         switch change {
///         case .keep: break
///         case .save(let session): sessions[id] = session
///         case .remove: sessions[id] = nil
///         }
///         return result
///     }
///     func updateAll(_ body: @Sendable (inout ServerSession) -> Void) async throws {
///         for id in sessions.keys { body(&sessions[id]!) }
///     }
///     func remove(_ id: String) async throws { sessions[id] = nil }
///     func removeAll(of userID: User.ID) async throws { sessions = sessions.filter { $0.value.userID != userID } }
///     func removeSessions(refreshedBefore cutoff: Date) async throws -> Int {
///         let before = sessions.count
///         sessions = sessions.filter { $0.value.refreshedAt.map { $0 >= cutoff } ?? true }
///         return before - sessions.count
///     }
/// }
/// ```
protocol ServerSessionStore: Sendable {
    /// Adds a new session.
    func create(_ session: ServerSession, id: String) async throws

    /// A session by id, `nil` when it has ended.
    func session(_ id: String) async throws -> ServerSession?

    /// Where the session an access token names stands for that token: one read on every authenticated request.
    /// The default reads the whole session (``session(_:)``); a store that can answer without loading it does so.
    func standing(of id: String, userID: User.ID, accessJTI: String) async throws -> ServerSessionStanding

    /// The same question as ``standing(of:userID:accessJTI:)``, asked of the request's storage instead of now: a
    /// check that the request's first storage transaction carries (``TokenService/VerifiedAccess``), `verify`
    /// judging the answer. `nil` (the default) when the store cannot, and the question is asked at once.
    func deferredStanding(
        of id: String, userID: User.ID, accessJTI: String,
        verify: @escaping @Sendable (ServerSessionStanding) throws -> Void
    ) -> PostgresDocumentCheck?

    /// Reads a session, lets `body` decide, and applies its decision, all at once: no other update of the same session
    /// runs in between.
    /// - Returns: `body`'s result.
    func update<Result: Sendable>(
        _ id: String, _ body: @Sendable (ServerSession?) -> (ServerSessionChange, Result)
    ) async throws -> Result

    /// Changes every session (test mode: declaring every access token expired).
    func updateAll(_ body: @Sendable (inout ServerSession) -> Void) async throws

    /// Ends one session; nothing happens when it has already ended.
    func remove(_ id: String) async throws

    /// Ends every session of a user.
    func removeAll(of userID: User.ID) async throws

    /// Ends every session whose refresh token was issued before `cutoff`: with `cutoff` a refresh token's lifetime
    /// ago, the sessions nobody can continue (maintenance).
    /// - Returns: How many ended.
    func removeSessions(refreshedBefore cutoff: Date) async throws -> Int
}

/// Why a session store could not open or save.
struct ServerSessionStoreError: Error, CustomStringConvertible, Equatable {
    enum Code: Sendable, Equatable {
        /// The sessions file cannot be read as sessions.
        case damaged
        /// The sessions file cannot be read or written.
        case io
    }

    var code: Code
    var message: String

    var description: String { message }
}

extension ServerSessionStore {
    func deferredStanding(
        of id: String, userID: User.ID, accessJTI: String,
        verify: @escaping @Sendable (ServerSessionStanding) throws -> Void
    ) -> PostgresDocumentCheck? {
        nil
    }

    func standing(of id: String, userID: User.ID, accessJTI: String) async throws -> ServerSessionStanding {
        guard let session = try await session(id), session.userID == userID else { return .ended }
        return session.expiredAccessJTIs.contains(accessJTI) ? .accessExpired : .current
    }
}
