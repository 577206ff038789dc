@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// Creates and upgrades a schema: named migrations, in order, each run once and recorded in `schema_migrations`,
/// all pending ones in one transaction, under a session advisory lock so that processes starting together migrate
/// once. Nothing is ever dropped.
///
/// The migrations are `0001_base` (blobs and the change log), then one per table: `table:<kind>` for each
/// ``RecordKind``, `index:<name>` and `listing:<name>` for each declaration in ``StorageSchema``. A declaration a
/// newer SDK adds is a new migration, which creates its table and fills it from the rows already stored.
struct PostgresMigrator: Sendable {
    static let migrationsTable = SQLIdentifier("schema_migrations")!
    static let blobsTable = SQLIdentifier("blobs")!
    static let changeLogTable = SQLIdentifier("change_log")!
    /// One row: the change log's name (the first part of its positions) and how far it was trimmed.
    static let changeLogStateTable = SQLIdentifier("change_log_state")!
    /// The migration adding ``changeLogStateTable``.
    static let changeLogStateVersion = "0006_change_log_state"
    /// The migration giving `row_post` its feed columns.
    static let postFeedColumnsVersion = "0005_post_feed_columns"
    static let changeLogTimeIndex = SQLIdentifier("change_log_committed_at")!
    static let changeLogTransactionIndex = SQLIdentifier("change_log_xid")!
    /// Migration 0003's function; an instance of an earlier release may still call it.
    static let appendChangeFunction = SQLIdentifier("append_change")!

    let layout: PostgresSchemaLayout
    let logger: Logger

    private struct Migration {
        var version: String
        var statements: [String]
        /// Fills a new entry table from its kind's stored rows.
        var fill: (@Sendable (PostgresConnection) async throws -> Void)?
    }

    /// Brings the schema up to date, creating it if needed.
    func migrate(on connection: PostgresConnection) async throws {
        let lock = "diary-sdk:migrate:\(layout.schema.name)"
        try await connection.run("SELECT pg_advisory_lock(hashtext(\(lock)))", logger: logger)
        do {
            try await migrateHoldingLock(on: connection)
        } catch {
            try? await connection.run("SELECT pg_advisory_unlock(hashtext(\(lock)))", logger: logger)
            throw error
        }
        try await connection.run("SELECT pg_advisory_unlock(hashtext(\(lock)))", logger: logger)
    }

    private func migrateHoldingLock(on connection: PostgresConnection) async throws {
        let migrations = layout.qualified(Self.migrationsTable)
        try await connection.run(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(layout.schema)"), logger: logger)
        try await connection.run(
            PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(migrations) (version text PRIMARY KEY, \
                applied_at timestamptz NOT NULL DEFAULT now())
                """), logger: logger)
        var applied = Set<String>()
        for try await version in try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT version FROM \(migrations)"), logger: logger
        ).decode(String.self) {
            applied.insert(version)
        }
        let pending = try await allMigrations(applied: applied, on: connection).filter { !applied.contains($0.version) }
        guard !pending.isEmpty else { return }
        // One transaction: a schema is upgraded completely or not at all.
        try await connection.run("BEGIN", logger: logger)
        do {
            for migration in pending {
                logger.info("migrating", metadata: ["schema": "\(layout.schema.name)", "version": "\(migration.version)"])
                for statement in migration.statements {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await migration.fill?(connection)
                var record = SQLStatement("INSERT INTO \(migrations) (version) VALUES (")
                record.bind(migration.version)
                record.append(")")
                try await connection.run(record.query, logger: logger)
            }
            try await connection.run("COMMIT", logger: logger)
        } catch {
            try? await connection.run("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Every migration, in order.
    private func allMigrations(applied: Set<String>, on connection: PostgresConnection) async throws -> [Migration] {
        var migrations = [
            Migration(
                version: "0001_base",
                statements: [
                    "CREATE TABLE \(layout.qualified(Self.blobsTable)) (attachment_id uuid PRIMARY KEY, data bytea NOT NULL)",
                    """
                    CREATE TABLE \(layout.qualified(Self.changeLogTable)) (seq bigserial PRIMARY KEY, \
                    committed_at timestamptz NOT NULL DEFAULT now(), mutations jsonb NOT NULL)
                    """,
                ]),
            // `trimChangeLog(committedBefore:)` deletes by commit time.
            Migration(
                version: "0002_change_log_committed_at",
                statements: [
                    """
                    CREATE INDEX \(Self.changeLogTimeIndex) ON \(layout.qualified(Self.changeLogTable)) \
                    (committed_at)
                    """
                ]),
            // A write's change log row in one round trip: `SELECT append_change($1)`, under a lock held until
            // commit. Writes no longer call it (0004), but an instance of an earlier release still may.
            Migration(version: "0003_append_change", statements: [appendChangeFunctionDefinition]),
            // The change log without a lock: each row carries its writer's transaction id, and the feed reads below
            // the oldest running transaction (PostgresChangeFeed). Rows logged before it have none and are past.
            Migration(
                version: "0004_change_log_xid",
                statements: [
                    "ALTER TABLE \(layout.qualified(Self.changeLogTable)) ADD COLUMN xid xid8",
                    "ALTER TABLE \(layout.qualified(Self.changeLogTable)) ALTER COLUMN xid SET DEFAULT pg_current_xact_id()",
                    """
                    CREATE INDEX \(Self.changeLogTransactionIndex) ON \(layout.qualified(Self.changeLogTable)) \
                    (xid, seq) WHERE xid IS NOT NULL
                    """,
                ]),
        ]
        for kind in RecordKind.allCases {
            let version = "table:\(kind.rawValue)"
            guard !applied.contains(version) else { continue }
            let trigram = kind == .post ? try await trigramSchema(on: connection) : layout.schema
            migrations.append(Migration(version: version, statements: layout.createStatements(for: kind, trigramSchema: trigram)))
        }
        // Posts carry their feed position and author (`sort_micros`, `sort_id`, `author_id`, `is_anonymous`, what
        // their entry in the feed listing holds), so a search walks the posts in feed order on `row_post_feed` and
        // tests each post's row once, instead of a listing row and a key lookup into `row_post` per post it tests
        // (docs/PERFORMANCE.md). A post table created with them (table:post above) has nothing to add.
        if !applied.contains(Self.postFeedColumnsVersion) {
            var statements: [String] = []
            if applied.contains("table:\(RecordKind.post.rawValue)") {
                let posts = layout.recordTable(.post)
                let feed = layout.qualified(try layout.listing(named: StorageSchema.feed.name).table)
                statements = [
                    """
                    ALTER TABLE \(posts) ADD COLUMN sort_micros bigint, ADD COLUMN sort_id uuid, ADD COLUMN author_id uuid, \
                    ADD COLUMN is_anonymous boolean
                    """,
                    """
                    UPDATE \(posts) r SET sort_micros = l.sort_micros, sort_id = l.sort_id, author_id = l.author_id, \
                    is_anonymous = l.is_anonymous FROM \(feed) l WHERE l.key = r.key
                    """,
                    """
                    ALTER TABLE \(posts) ALTER COLUMN sort_micros SET NOT NULL, ALTER COLUMN sort_id SET NOT NULL, \
                    ALTER COLUMN author_id SET NOT NULL, ALTER COLUMN is_anonymous SET NOT NULL
                    """,
                    "CREATE INDEX \(layout.postFeedIndex) ON \(posts) (sort_micros, sort_id)",
                ]
            }
            migrations.append(Migration(version: Self.postFeedColumnsVersion, statements: statements))
        }
        // Positions a stream can resume after on any process: the log's random name tells its positions from another
        // schema's, and the trim mark (the last row a trim deleted, in `(xid, seq)` order) tells which are too old.
        migrations.append(
            Migration(
                version: Self.changeLogStateVersion,
                statements: [
                    """
                    CREATE TABLE \(layout.qualified(Self.changeLogStateTable)) (one boolean PRIMARY KEY DEFAULT true \
                    CHECK (one), log text NOT NULL, trimmed_xid xid8 NOT NULL, trimmed_seq bigint NOT NULL)
                    """,
                    """
                    INSERT INTO \(layout.qualified(Self.changeLogStateTable)) (log, trimmed_xid, trimmed_seq) \
                    VALUES ('pg' || substr(md5(random()::text || clock_timestamp()::text), 1, 12), '0', 0)
                    """,
                ]))
        let derived = PostgresDerivedRows(layout: layout, logger: logger)
        for declaration in StorageSchema.allIndices {
            let index = try layout.index(named: declaration.name)
            migrations.append(
                Migration(version: "index:\(declaration.name)", statements: layout.createStatements(for: index)) { connection in
                    try await derived.forEachStored(declaration.kind, on: connection) { key, record in
                        try await derived.insert(index.declaration.entries(of: record), of: key, into: index, on: connection)
                    }
                })
        }
        for declaration in StorageSchema.allListings {
            let listing = try layout.listing(named: declaration.name)
            migrations.append(
                Migration(version: "listing:\(declaration.name)", statements: layout.createStatements(for: listing)) { connection in
                    try await derived.forEachStored(declaration.kind, on: connection) { key, record in
                        try await derived.insert(listing.declaration.entries(of: record), of: key, into: listing, on: connection)
                    }
                })
        }
        return migrations
    }

    /// The lock migration 0003's `append_change` takes.
    static func changeLogLockName(schema: SQLIdentifier) -> String { "diary-sdk:change-log:\(schema.name)" }

    /// Migration 0003's `append_change(mutations jsonb) RETURNS bigint`, in PL/pgSQL: checks the transaction's
    /// deferred unique constraints, takes the change log lock, held until commit, so sequence numbers committed in
    /// order, and appends the row. Since 0004 writes insert their row themselves, without the lock: holding it from
    /// the row to `COMMIT` made concurrent writes queue on it (docs/PERFORMANCE.md). Kept, unchanged, for an
    /// instance of an earlier release during a rolling upgrade.
    private var appendChangeFunctionDefinition: String {
        """
        CREATE OR REPLACE FUNCTION \(layout.qualified(Self.appendChangeFunction))(mutations jsonb) RETURNS bigint \
        LANGUAGE plpgsql AS $body$
        DECLARE
            appended bigint;
        BEGIN
            SET CONSTRAINTS ALL IMMEDIATE;
            PERFORM pg_advisory_xact_lock(hashtext('\(Self.changeLogLockName(schema: layout.schema))'));
            INSERT INTO \(layout.qualified(Self.changeLogTable)) AS log (mutations) VALUES (append_change.mutations)
                RETURNING log.seq INTO appended;
            RETURN appended;
        END
        $body$
        """
    }

    /// Appends a write's change log row: `INSERT INTO change_log (mutations) VALUES ($1)`, its `xid` the writer's
    /// transaction id (the column's default). `gate`, when given, is a condition the row is inserted under (a part
    /// of a combined statement: `WHERE EXISTS (SELECT FROM w0)`).
    func appendChange(_ document: String, gate: String? = nil, to statement: inout SQLStatement) {
        statement.append("INSERT INTO \(layout.qualified(Self.changeLogTable)) (mutations) ")
        if let gate {
            statement.append("SELECT ")
            statement.bind(document)
            statement.append("::jsonb\(gate)")
        } else {
            statement.append("VALUES (")
            statement.bind(document)
            statement.append("::jsonb)")
        }
    }

    /// A write's last statement before `COMMIT` when its change log row is a statement of its own.
    func appendChangeStatement(_ mutations: [StoreMutation]) throws -> SQLStatement {
        var statement = SQLStatement()
        appendChange(try PostgresRowCoding.changeLogDocument(mutations), to: &statement)
        return statement
    }

    /// The schema holding `pg_trgm` (for `gin_trgm_ops`), creating the extension if the database lacks it.
    private func trigramSchema(on connection: PostgresConnection) async throws -> SQLIdentifier {
        func find() async throws -> String? {
            let rows = try await connection.query(
                """
                SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace \
                WHERE e.extname = 'pg_trgm'
                """, logger: logger)
            for try await name in rows.decode(String.self) { return name }
            return nil
        }
        var name = try await find()
        if name == nil {
            // Database-wide: one process creates it, whichever schema it migrates.
            try await connection.run("SELECT pg_advisory_lock(hashtext('diary-sdk:pg_trgm'))", logger: logger)
            do {
                try await connection.run("CREATE EXTENSION IF NOT EXISTS pg_trgm", logger: logger)
            } catch {
                try? await connection.run("SELECT pg_advisory_unlock(hashtext('diary-sdk:pg_trgm'))", logger: logger)
                throw error
            }
            try await connection.run("SELECT pg_advisory_unlock(hashtext('diary-sdk:pg_trgm'))", logger: logger)
            name = try await find()
        }
        guard let name, let schema = SQLIdentifier(name) else {
            throw DiaryError(.server, "the pg_trgm extension is not installed in a schema this store can name")
        }
        return schema
    }
}

extension PostgresDerivedRows {
    /// Calls `body` with every stored row of a kind, a thousand at a time in key order (for filling a new table).
    func forEachStored(
        _ kind: RecordKind, on connection: PostgresConnection, _ body: (String, StoreRecord) async throws -> Void
    ) async throws {
        var last: String?
        while true {
            var statement = SQLStatement("SELECT key, doc::text FROM \(layout.recordTable(kind))")
            if let last {
                statement.append(" WHERE key > ")
                statement.bind(last)
            }
            statement.append(" ORDER BY key LIMIT 1000")
            var batch: [(String, String)] = []
            for try await row in try await connection.query(statement.query, logger: logger).decode((String, String).self) {
                batch.append(row)
            }
            for (key, document) in batch {
                try await body(key, try PostgresRowCoding.record(from: document, kind: kind))
            }
            guard batch.count == 1000 else { return }
            last = batch.last?.0
        }
    }
}
