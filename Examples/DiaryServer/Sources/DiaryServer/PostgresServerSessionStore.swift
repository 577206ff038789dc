@_spi(Storage) import DiaryPostgres
import DiarySDK
import Foundation

/// Sessions in the world's PostgreSQL schema (table `server_sessions`), so they outlive a restart and every server
/// process on the database honours them. A refresh locks the session's row (`SELECT … FOR UPDATE`) while it
/// decides, so two processes refreshing the same token take turns.
final class PostgresServerSessionStore: ServerSessionStore {
    /// The table's name in the world's schema.
    static let tableName = "server_sessions"

    private let table: PostgresDocumentTable

    /// Opens the sessions table of `storage`'s schema, creating it when absent.
    /// - Throws: ``DiaryError`` when the database refuses.
    init(storage: PostgresDiaryStorage) async throws {
        table = try await storage.documentTable(named: Self.tableName)
    }

    func create(_ session: ServerSession, id: String) async throws {
        try await table.insert(id: id, owner: Self.owner(session.userID), state: Self.encode(session))
    }

    func session(_ id: String) async throws -> ServerSession? {
        try await table.state(id: id).map(Self.decode)
    }

    func standing(of id: String, userID: User.ID, accessJTI: String) async throws -> ServerSessionStanding {
        // Compared in SQL, so the session's JSON is neither sent nor decoded.
        Self.standing(try await table.owner(id: id, arrayMember: Self.expiredMember, holds: accessJTI), of: userID)
    }

    func deferredStanding(
        of id: String, userID: User.ID, accessJTI: String,
        verify: @escaping @Sendable (ServerSessionStanding) throws -> Void
    ) -> PostgresDocumentCheck? {
        PostgresDocumentCheck(table: table, id: id, arrayMember: Self.expiredMember, element: accessJTI) { found in
            try verify(Self.standing(found, of: userID))
        }
    }

    /// The session's member listing the access tokens declared expired (``ServerSession/expiredAccessJTIs``).
    private static let expiredMember = "expiredAccessJTIs"

    private static func standing(_ found: PostgresDocumentCheck.Found, of userID: User.ID) -> ServerSessionStanding {
        guard let found, found.owner == owner(userID) else { return .ended }
        return found.holds ? .accessExpired : .current
    }

    func update<Result: Sendable>(
        _ id: String, _ body: @Sendable (ServerSession?) -> (ServerSessionChange, Result)
    ) async throws -> Result {
        try await table.update(id: id) { state in
            // A row this server cannot read is a session that has ended.
            let (change, result) = body(state.flatMap { try? Self.decode($0) })
            switch change {
            case .keep: return (.keep, result)
            case .remove: return (.remove, result)
            case .save(let session):
                guard let state = try? Self.encode(session) else { return (.keep, result) }
                return (.save(state), result)
            }
        }
    }

    func updateAll(_ body: @Sendable (inout ServerSession) -> Void) async throws {
        for (id, _) in try await table.all() {
            _ = try await table.update(id: id) { state -> (PostgresDocumentTable.Change, Void) in
                guard var session = state.flatMap({ try? Self.decode($0) }) else { return (.keep, ()) }
                body(&session)
                guard let state = try? Self.encode(session) else { return (.keep, ()) }
                return (.save(state), ())
            }
        }
    }

    func remove(_ id: String) async throws {
        try await table.remove(id: id)
    }

    func removeAll(of userID: User.ID) async throws {
        try await table.removeAll(owner: Self.owner(userID))
    }

    /// Deletes by the row's `updated_at`, which every save sets: a session saved since `cutoff` may still be alive,
    /// and one not saved since has had no refresh since (each rotation saves), so its refresh token is older.
    func removeSessions(refreshedBefore cutoff: Date) async throws -> Int {
        try await table.removeAll(updatedBefore: cutoff)
    }

    private static func owner(_ userID: User.ID) -> String { userID.description }

    private static func encode(_ session: ServerSession) throws -> String {
        String(decoding: try JSONEncoder().encode(session), as: UTF8.self)
    }

    private static func decode(_ state: String) throws -> ServerSession {
        try JSONDecoder().decode(ServerSession.self, from: Data(state.utf8))
    }
}
