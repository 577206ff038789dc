import DiarySDK
import Foundation

/// Sessions in this process's memory: they end when it stops, and only it honours them (`--in-memory`).
final class InMemoryServerSessionStore: ServerSessionStore {
    private let sessions: Protected<[String: ServerSession]>

    /// A store holding `sessions` (none by default).
    init(sessions: [String: ServerSession] = [:]) {
        self.sessions = Protected(sessions)
    }

    /// Every session, by id (for tests and for ``FileServerSessionStore``).
    var all: [String: ServerSession] { sessions.current }

    func create(_ session: ServerSession, id: String) async throws {
        sessions.withLock { $0[id] = session }
    }

    func session(_ id: String) async throws -> ServerSession? {
        sessions.current[id]
    }

    func update<Result: Sendable>(
        _ id: String, _ body: @Sendable (ServerSession?) -> (ServerSessionChange, Result)
    ) async throws -> Result {
        sessions.withLock { table in Self.apply(body, to: &table, id: id) }
    }

    func updateAll(_ body: @Sendable (inout ServerSession) -> Void) async throws {
        sessions.withLock { table in
            for id in table.keys { body(&table[id]!) }
        }
    }

    func remove(_ id: String) async throws {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    func removeAll(of userID: User.ID) async throws {
        sessions.withLock { table in table = table.filter { $0.value.userID != userID } }
    }

    func removeSessions(refreshedBefore cutoff: Date) async throws -> Int {
        sessions.withLock { table in Self.removeSessions(refreshedBefore: cutoff, from: &table) }
    }

    /// Drops the sessions refreshed before `cutoff` from a table; returns how many.
    static func removeSessions(refreshedBefore cutoff: Date, from table: inout [String: ServerSession]) -> Int {
        let before = table.count
        table = table.filter { _, session in session.refreshedAt.map { $0 >= cutoff } ?? true }
        return before - table.count
    }

    /// Runs an update's body on a table and applies its change.
    static func apply<Result>(
        _ body: (ServerSession?) -> (ServerSessionChange, Result), to table: inout [String: ServerSession], id: String
    ) -> Result {
        let (change, result) = body(table[id])
        switch change {
        case .keep: break
        case .save(let session): table[id] = session
        case .remove: table[id] = nil
        }
        return result
    }
}
