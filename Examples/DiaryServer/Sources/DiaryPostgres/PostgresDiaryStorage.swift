@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A ``DiaryStorage`` on PostgreSQL 15 or later: the SDK's storage contract over a connection pool, so several
/// server processes can share one database.
///
/// ```swift
/// @_spi(Storage) import DiaryPostgres
/// @_spi(Engine) @_spi(Storage) import DiarySDK
///
/// let storage = try await PostgresDiaryStorage.connect(
///     configuration: try .init(url: "postgres://diary@127.0.0.1:5432/diary", schema: "diary"))
/// let engine = DiaryEngine(storage: storage, actingAs: userID)   // one per request, as a server does
/// let feed = try await engine.repositories.posts.feed(page: .first())
/// // …
/// await storage.shutdown()
/// ```
///
/// - Reads run in a `REPEATABLE READ READ ONLY` transaction: one committed state, never waiting for a writer.
/// - Writes run `SERIALIZABLE`; a serialisation failure or deadlock runs the body again, up to
///   ``Configuration/writeAttempts`` times, after a random back-off that doubles with each attempt (up to 1 s). When the body throws, its changes are
///   rolled back but its reads are still committed, so PostgreSQL checks that what made it throw was a
///   serialisable view (if not, the body runs again).
/// - Each write that changed rows appends its mutations to `change_log` in the same transaction, which feeds
///   ``committedChanges(after:)`` in every process (``PostgresChangeFeed``). Positions name rows of that table, so a
///   stream resumes on any process sharing the schema, and after a restart, for as long as the rows are kept
///   (``trimChangeLog(committedBefore:)``, ``trimChangeLog(keepingNewest:)``).
/// - Unique indices are `UNIQUE` constraints, checked at commit; a violation is ``DiaryError/Code/conflict``.
///
/// docs/CustomStorage.md ("The PostgreSQL store") describes the tables.
@_spi(Storage)
public final class PostgresDiaryStorage: DiaryStorage {
    /// The schema's tables.
    let layout: PostgresSchemaLayout
    private let configuration: Configuration
    let client: PostgresClient
    let logger: Logger
    let feed: PostgresChangeFeed
    private let tasks: NIOLockedValueBox<[Task<Void, Never>]>
    private let metrics = PostgresStorageMetrics()

    private init(
        configuration: Configuration, layout: PostgresSchemaLayout, client: PostgresClient, feed: PostgresChangeFeed,
        tasks: [Task<Void, Never>], logger: Logger
    ) {
        self.configuration = configuration
        self.layout = layout
        self.client = client
        self.feed = feed
        self.tasks = NIOLockedValueBox(tasks)
        self.logger = logger
    }

    /// Connects, creates or upgrades the schema (``PostgresMigrator``), and starts following the change log.
    /// - Parameters:
    ///   - configuration: Where to connect and which schema to use.
    ///   - logger: Where the pool and the store log.
    /// - Returns: The running store; call ``shutdown()`` when done.
    /// - Throws: ``DiaryError``: `.unavailable` when the database cannot be reached, `.server` when the schema
    ///   name is not valid or a declared index or listing is not one this store can keep.
    public static func connect(
        configuration: Configuration, logger: Logger = Logger(label: "diary.postgres")
    ) async throws -> PostgresDiaryStorage {
        let layout = try PostgresSchemaLayout(schema: configuration.schema)
        let client = PostgresClient(configuration: configuration.clientWithSessionParameters, backgroundLogger: logger)
        let run = Task { await client.run() }
        do {
            // The deadline is for reaching the database; a migration that back-fills a large table, or waits for
            // another instance's, takes what it takes.
            try await withDeadline(configuration.startupTimeout, operation: "storage.connect") {
                try await client.withConnection { _ in }
            }
            try await client.withConnection { connection in
                try await PostgresMigrator(layout: layout, logger: logger).migrate(on: connection)
            }
            let feed = PostgresChangeFeed(
                client: client, table: layout.qualified(PostgresMigrator.changeLogTable),
                stateTable: layout.qualified(PostgresMigrator.changeLogStateTable),
                logName: try await changeLogName(client: client, layout: layout, logger: logger),
                from: try await PostgresChangeFeed.snapshot(client: client, logger: logger),
                backlog: configuration.changeStreamBacklog, retryInterval: configuration.changePollInterval, logger: logger)
            let interval = configuration.changePollInterval
            let poll = Task { await feed.poll(every: interval) }
            return PostgresDiaryStorage(
                configuration: configuration, layout: layout, client: client, feed: feed, tasks: [poll, run], logger: logger)
        } catch {
            run.cancel()
            await run.value
            throw DiaryError.postgres(error, "storage.connect", layout: layout)
        }
    }

    /// The schema's change log name (`change_log_state.log`), the first part of its positions.
    private static func changeLogName(client: PostgresClient, layout: PostgresSchemaLayout, logger: Logger) async throws -> String {
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT log FROM \(layout.qualified(PostgresMigrator.changeLogStateTable))"), logger: logger)
        for try await name in rows.decode(String.self) { return name }
        throw DiaryError(.server, "the change log has no state row (change_log_state)")
    }

    /// Stops following the change log (ending every ``committedChanges(after:)`` stream) and closes the pool.
    public func shutdown() async {
        let tasks = self.tasks.withLockedValue { tasks in
            defer { tasks = [] }
            return tasks
        }
        feed.stop()
        for task in tasks {
            task.cancel()
            await task.value
        }
    }

    /// Drops the store's schema and everything in it: for tests, which give each store a schema of its own. The
    /// change feed stops first (its streams end); call ``shutdown()`` after.
    /// - Throws: ``DiaryError`` when the database refuses.
    public func dropSchema() async throws {
        feed.stop()
        do {
            try await client.run(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(layout.schema) CASCADE"), logger: logger)
        } catch {
            throw DiaryError.postgres(error, "storage.dropSchema", layout: layout)
        }
    }

    /// Deletes change log entries committed before a date: the log grows by one row per write and the store never
    /// trims it itself. How far it was trimmed is recorded (`change_log_state`): a stream resuming after a position
    /// before a deleted entry opens with ``ChangeLogEvent/trimmed(_:)``, and a stream still owed a deleted entry ends
    /// and resumes so.
    /// - Parameter date: Entries committed before it go.
    /// - Returns: How many entries were deleted.
    /// - Throws: ``DiaryError`` when the database refuses.
    @discardableResult
    public func trimChangeLog(committedBefore date: Date) async throws -> Int {
        let table = layout.qualified(PostgresMigrator.changeLogTable)
        return try await trimChangeLog { statement, limit in
            statement.append("SELECT seq FROM \(table) WHERE committed_at < ")
            statement.bind(date)
            statement.append(" ORDER BY committed_at LIMIT \(limit)")
        }
    }

    /// Deletes all but the newest `count` change log entries (in the log's order), as
    /// ``trimChangeLog(committedBefore:)`` does.
    /// - Parameter count: How many entries to keep (at least 1).
    /// - Returns: How many entries were deleted.
    /// - Throws: ``DiaryError`` when the database refuses.
    @discardableResult
    public func trimChangeLog(keepingNewest count: Int) async throws -> Int {
        let table = layout.qualified(PostgresMigrator.changeLogTable)
        return try await trimChangeLog { statement, limit in
            statement.append(
                """
                SELECT seq FROM \(table) WHERE xid IS NULL OR (xid, seq) < (SELECT xid, seq FROM \(table) \
                WHERE xid IS NOT NULL ORDER BY xid DESC, seq DESC OFFSET \(max(1, count) - 1) LIMIT 1) \
                ORDER BY xid NULLS FIRST, seq LIMIT \(limit)
                """)
        }
    }

    /// Deletes the entries `select` names (a `SELECT seq` of at most its argument rows), in batches, each its own
    /// short transaction that also moves the trim mark past the last entry it deleted.
    private func trimChangeLog(_ select: (inout SQLStatement, Int) -> Void) async throws -> Int {
        let table = layout.qualified(PostgresMigrator.changeLogTable)
        let state = layout.qualified(PostgresMigrator.changeLogStateTable)
        var total = 0
        while true {
            var statement = SQLStatement("WITH gone AS (DELETE FROM \(table) WHERE seq IN (")
            select(&statement, Self.trimBatchSize)
            statement.append(
                """
                ) RETURNING xid, seq), mark AS (SELECT xid, seq FROM gone WHERE xid IS NOT NULL \
                ORDER BY xid DESC, seq DESC LIMIT 1), moved AS (UPDATE \(state) s SET trimmed_xid = mark.xid, \
                trimmed_seq = mark.seq FROM mark WHERE (mark.xid, mark.seq) > (s.trimmed_xid, s.trimmed_seq) RETURNING 1) \
                SELECT count(*) FROM gone
                """)
            let deleted = try await client.count(statement.query, logger: logger, operation: "storage.trimChangeLog")
            total += deleted
            if deleted < Self.trimBatchSize || Task.isCancelled { return total }
        }
    }

    /// The most change log rows one statement of a trim deletes.
    static let trimBatchSize = 10_000

    /// The schema holding the store's tables.
    public var schemaName: String { layout.schema.name }

    // MARK: - DiaryStorage

    public func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageReader) async throws -> Result
    ) async throws -> Result {
        let start = ContinuousClock.now
        defer { metrics.record(.read, since: start) }
        do {
            return try await metrics.withConnection(client) { connection in
                try await connection.run(.beginReadOnly, logger: logger)
                do {
                    let result: Result
                    do {
                        result = try await body(PostgresReader(connection: connection, layout: layout, logger: logger))
                    } catch where !DiaryError.isPostgresFailure(error) && !(error is CancellationError) {
                        // A task whose document check fails hears that, not what the body found.
                        try await settleDocumentCheck(on: connection)
                        throw error
                    }
                    try await settleDocumentCheck(on: connection)
                    try await connection.run(.commit, logger: logger)
                    return result
                } catch {
                    await rollBack(connection)
                    throw error
                }
            }
        } catch {
            throw DiaryError.postgres(error, operation, layout: layout)
        }
    }

    public func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageTransaction) async throws -> Result
    ) async throws -> Result {
        do {
            var attempt = 1
            var outcome: (result: Result, changed: Bool)?
            let start = ContinuousClock.now
            defer { metrics.record(.write, since: start) }
            while outcome == nil {
                do {
                    outcome = try await metrics.withConnection(client) { connection in try await attemptWrite(body, on: connection) }
                } catch let failure as RuleFailure {
                    throw failure.error
                } catch where DiaryError.isRetryablePostgresError(error) && attempt < configuration.writeAttempts {
                    // The connection goes back to the pool while this writer waits.
                    logger.debug("write conflicted; running it again", metadata: ["operation": "\(operation)", "attempt": "\(attempt)"])
                    metrics.retried()
                    // What the failed attempt read is not to be trusted, the task's document check included.
                    PostgresDocumentCheck.pending?.reopenAfterFailedAttempt()
                    try await Task.sleep(for: Self.backOff(afterAttempt: attempt))
                    attempt += 1
                }
            }
            let (result, changed) = outcome!
            if changed, feed.hasSubscribers { Task { await feed.catchUp() } }
            return result
        } catch {
            throw DiaryError.postgres(error, operation, layout: layout)
        }
    }

    public func saveBlob(_ data: Data, for id: Attachment.ID) async throws {
        var statement = SQLStatement("INSERT INTO \(layout.qualified(PostgresMigrator.blobsTable)) (attachment_id, data) VALUES (")
        statement.bind(id.rawValue)
        statement.append(", ")
        statement.bind(ByteBuffer(data: data))
        statement.append(") ON CONFLICT (attachment_id) DO UPDATE SET data = EXCLUDED.data")
        do {
            try await client.run(statement.query, logger: logger)
        } catch {
            throw DiaryError.postgres(error, "attachments.saveBlob", layout: layout)
        }
    }

    public func blob(for id: Attachment.ID) async throws -> Data {
        var statement = SQLStatement("SELECT data FROM \(layout.qualified(PostgresMigrator.blobsTable)) WHERE attachment_id = ")
        statement.bind(id.rawValue)
        let data: Data?
        do {
            data = try await firstBlob(statement)
        } catch {
            throw DiaryError.postgres(error, "attachments.blob", layout: layout)
        }
        guard let data else { throw DiaryError.notFound("attachment \(id)") }
        return data
    }

    /// The change log after `position` (from the live feed's place when `nil`): positions are `<log>.<xid>.<seq>`,
    /// valid on every process sharing the schema and across restarts, until trimmed (``PostgresChangeFeed``).
    public func committedChanges(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent> {
        feed.subscribe(after: position)
    }

    // MARK: - Helpers

    /// Runs `body`, giving up with ``DiaryError/Code/unavailable`` after `limit`.
    private static func withDeadline(
        _ limit: Duration, operation: String, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw DiaryError(.unavailable, "\(operation) could not reach the database within \(limit)", retryAfter: 1)
            }
        }
    }

    private func firstBlob(_ statement: SQLStatement) async throws -> Data? {
        for try await buffer in try await client.query(statement.query, logger: logger).decode(ByteBuffer.self) {
            return Data(buffer.readableBytesView)
        }
        return nil
    }
}
