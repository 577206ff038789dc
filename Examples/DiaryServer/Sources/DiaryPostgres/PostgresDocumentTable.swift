@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// A small table of JSON documents by key, beside a store's own tables and on its pool: for state a server keeps
/// next to the data, such as its sessions, that every process on the database must see.
///
/// The table is `(id text PRIMARY KEY, owner text NOT NULL, state jsonb NOT NULL, updated_at timestamptz NOT NULL)`
/// in the store's schema, created by ``PostgresDiaryStorage/documentTable(named:)`` when absent. Every value is
/// bound as a parameter; the table name is validated like the schema's.
///
/// ```swift
/// let sessions = try await storage.documentTable(named: "server_sessions")
/// try await sessions.insert(id: sid, owner: userID, state: json)
/// let changed = try await sessions.update(id: sid) { state in (.save(newJSON), true) }   // row locked meanwhile
/// ```
@_spi(Storage)
public struct PostgresDocumentTable: Sendable {
    /// What ``update(id:_:)`` does with the document it read.
    public enum Change: Sendable {
        /// Leaves the row as it is.
        case keep
        /// Replaces the row's state (when there is a row: ``insert(id:owner:state:)`` adds one).
        case save(String)
        /// Deletes the row.
        case remove
    }

    let table: String
    let client: PostgresClient
    let logger: Logger

    /// Adds a document.
    /// - Throws: ``DiaryError`` when the database refuses (`.conflict` when the id is taken).
    public func insert(id: String, owner: String, state: String) async throws {
        var statement = SQLStatement("INSERT INTO \(table) (id, owner, state, updated_at) VALUES (")
        statement.bind(id)
        statement.append(", ")
        statement.bind(owner)
        statement.append(", ")
        statement.bind(state)
        statement.append("::jsonb, now())")
        try await run(statement, "documents.insert")
    }

    /// The state of one document, `nil` when there is none.
    /// - Throws: ``DiaryError`` when the database refuses.
    public func state(id: String) async throws -> String? {
        var statement = SQLStatement("SELECT state::text FROM \(table) WHERE id = ")
        statement.bind(id)
        do {
            for try await state in try await client.rows(statement, logger: logger, decode: { try $0.decode(String.self) }) {
                return state
            }
            return nil
        } catch {
            throw DiaryError.postgres(error, "documents.state")
        }
    }

    /// A document's owner and whether the array `member` of its state holds the string `element`, `nil` when there
    /// is no document: one read by key that sends no document back (a session check on every request uses it).
    /// - Throws: ``DiaryError`` when the database refuses.
    public func owner(id: String, arrayMember member: String, holds element: String) async throws
        -> (owner: String, holds: Bool)?
    {
        var statement = SQLStatement()
        appendOwnerSelect(to: &statement, id: id, arrayMember: member, holds: element)
        do {
            let rows = try await client.rows(statement, logger: logger, decode: { try $0.decode((String, Bool).self) })
            for try await (owner, holds) in rows {
                return (owner, holds)
            }
            return nil
        } catch {
            throw DiaryError.postgres(error, "documents.owner")
        }
    }

    /// Appends the select of ``owner(id:arrayMember:holds:)``: `(owner, holds)`, no row when there is no document.
    func appendOwnerSelect(to statement: inout SQLStatement, id: String, arrayMember member: String, holds element: String) {
        statement.append("SELECT owner, coalesce(state->")
        statement.bind(member)
        statement.append(" ? ")
        statement.bind(element)
        statement.append(", false) AS holds FROM \(table) WHERE id = ")
        statement.bind(id)
    }

    /// Reads one document with its row locked (`SELECT … FOR UPDATE`), lets `body` decide, and applies the decision
    /// in the same transaction: two processes updating the same document run one after the other, the second
    /// reading what the first wrote.
    /// - Parameters:
    ///   - id: The document's id.
    ///   - body: Gets the current state (`nil` when there is none) and returns what to do and a result.
    /// - Returns: `body`'s result.
    /// - Throws: ``DiaryError`` when the database refuses; nothing is changed then.
    public func update<Result: Sendable>(
        id: String, _ body: @Sendable (String?) -> (Change, Result)
    ) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection -> Result in
                var select = SQLStatement("SELECT state::text FROM \(table) WHERE id = ")
                select.bind(id)
                select.append(" FOR UPDATE")
                var current: String?
                for try await state in try await connection.query(select.query, logger: logger).decode(String.self) {
                    current = state
                }
                let (change, result) = body(current)
                switch change {
                case .keep:
                    break
                case .save(let state):
                    var statement = SQLStatement("UPDATE \(table) SET state = ")
                    statement.bind(state)
                    statement.append("::jsonb, updated_at = now() WHERE id = ")
                    statement.bind(id)
                    _ = try await connection.query(statement.query, logger: logger)
                case .remove:
                    var statement = SQLStatement("DELETE FROM \(table) WHERE id = ")
                    statement.bind(id)
                    _ = try await connection.query(statement.query, logger: logger)
                }
                return result
            }
        } catch {
            throw DiaryError.postgres(error, "documents.update")
        }
    }

    /// Every document's id and state, for a change to all of them (few documents: a test world's).
    /// - Throws: ``DiaryError`` when the database refuses.
    public func all() async throws -> [(id: String, state: String)] {
        do {
            var rows: [(id: String, state: String)] = []
            let query = PostgresQuery(unsafeSQL: "SELECT id, state::text FROM \(table) ORDER BY id")
            for try await (id, state) in try await client.query(query, logger: logger).decode((String, String).self) {
                rows.append((id, state))
            }
            return rows
        } catch {
            throw DiaryError.postgres(error, "documents.all")
        }
    }

    /// Deletes one document; nothing happens when there is none.
    /// - Throws: ``DiaryError`` when the database refuses.
    public func remove(id: String) async throws {
        var statement = SQLStatement("DELETE FROM \(table) WHERE id = ")
        statement.bind(id)
        try await run(statement, "documents.remove")
    }

    /// Deletes every document of an owner.
    /// - Throws: ``DiaryError`` when the database refuses.
    public func removeAll(owner: String) async throws {
        var statement = SQLStatement("DELETE FROM \(table) WHERE owner = ")
        statement.bind(owner)
        try await run(statement, "documents.removeAll")
    }

    /// Deletes every document last saved before `date`, oldest first, on the `updated_at` index, in batches of
    /// ``removalBatchSize`` (each its own short statement, so a backlog never holds many row locks for long).
    /// - Returns: How many were deleted.
    /// - Throws: ``DiaryError`` when the database refuses.
    @discardableResult
    public func removeAll(updatedBefore date: Date) async throws -> Int {
        var total = 0
        while true {
            let statement = SQLStatement.deleteOldest(
                from: table, key: "id", where: "updated_at", "<", date, limit: Self.removalBatchSize)
            let deleted = try await client.count(statement.query, logger: logger, operation: "documents.removeAll")
            total += deleted
            if deleted < Self.removalBatchSize || Task.isCancelled { return total }
        }
    }

    /// The most documents one statement of ``removeAll(updatedBefore:)`` deletes.
    public static let removalBatchSize = 10_000

    private func run(_ statement: SQLStatement, _ operation: String) async throws {
        do {
            _ = try await client.query(statement.query, logger: logger)
        } catch {
            throw DiaryError.postgres(error, operation)
        }
    }
}

extension PostgresDiaryStorage {
    /// A table of JSON documents in the store's schema, created when absent (``PostgresDocumentTable``).
    /// - Parameter name: The table's name: a lowercase identifier (a-z, 0-9, _), not one of the store's own tables.
    /// - Returns: The table, on the store's pool; it works until ``shutdown()``.
    /// - Throws: ``DiaryError``: `.server` for a name that is not a lowercase identifier, else when the database
    ///   refuses.
    public func documentTable(named name: String) async throws -> PostgresDocumentTable {
        let (table, ownerIndex) = try serverTableNames(name, indexSuffix: "owner")
        let (_, updatedIndex) = try serverTableNames(name, indexSuffix: "updated")
        try await createServerTable(
            table,
            statements: [
                """
                CREATE TABLE IF NOT EXISTS \(table) (id text PRIMARY KEY, owner text NOT NULL, \
                state jsonb NOT NULL, updated_at timestamptz NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS \(ownerIndex) ON \(table) (owner)",
                "CREATE INDEX IF NOT EXISTS \(updatedIndex) ON \(table) (updated_at)",
            ], operation: "storage.documentTable")
        return PostgresDocumentTable(table: table, client: client, logger: logger)
    }

    /// Runs the statements that create one of a server's tables beside the store's own (each `… IF NOT EXISTS`),
    /// holding a transaction-scoped advisory lock on the table's name, so processes starting together on one schema
    /// take turns and none fails on the other's half-made table.
    /// - Throws: ``DiaryError`` when the database refuses.
    func createServerTable(_ table: String, statements: [String], operation: String) async throws {
        do {
            try await client.withTransaction(logger: logger) { connection in
                var lock = SQLStatement("SELECT pg_advisory_xact_lock(hashtext(")
                lock.bind(table)
                lock.append("))")
                _ = try await connection.query(lock.query, logger: logger)
                for statement in statements {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        } catch {
            throw DiaryError.postgres(error, operation, layout: layout)
        }
    }

    /// The qualified name of a server table, and of an index on it.
    /// - Throws: ``DiaryError`` `.server` when `name` (or `name_suffix`) is not a lowercase identifier.
    func serverTableNames(_ name: String, indexSuffix: String) throws -> (table: String, index: SQLIdentifier) {
        guard let identifier = SQLIdentifier(name) else {
            throw DiaryError(.server, "the table name '\(name)' is not a lowercase identifier (a-z, 0-9, _; at most 63 bytes)")
        }
        guard let index = SQLIdentifier(name + "_" + indexSuffix) else {
            throw DiaryError(.server, "the table name '\(name)' makes no index name \(name)_\(indexSuffix) of 63 bytes or fewer")
        }
        return (layout.qualified(identifier), index)
    }
}
