@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// A server's idempotency records beside a store's tables and on its pool, so a retried write is answered once
/// whichever process on the database it reaches.
///
/// The table is `(key text PRIMARY KEY, fingerprint text, state text ('pending' | 'complete'), claim uuid,
/// status integer, content_type text, body bytea, retry_after text, created_at timestamptz, updated_at timestamptz)`
/// with an index on `created_at` for expiry, created by ``PostgresDiaryStorage/idempotencyTable(named:)`` when absent.
/// Each method is one statement with bound values.
///
/// ```swift
/// let records = try await storage.idempotencyTable(named: "idempotency_records")
/// let claim = UUID()
/// if try await records.claim(key: key, fingerprint: fp, claim: claim, now: now, expiredAtOrBefore: dayAgo, staleBefore: minuteAgo) {
///     try await records.complete(key: key, claim: claim, response: response, now: Date())   // or release(key:claim:)
/// } else if case .complete(fp, let stored)? = try await records.record(key: key, createdAfter: dayAgo) {
///     replay(stored)
/// }
/// ```
@_spi(Storage)
public struct PostgresIdempotencyTable: Sendable {
    /// A response as it is stored and replayed.
    public struct Response: Sendable, Equatable {
        /// The HTTP status.
        public var status: Int
        /// The `Content-Type` header, when there is a body.
        public var contentType: String?
        /// The body.
        public var body: Data
        /// The `Retry-After` header, for a 429 or 503.
        public var retryAfter: String?

        /// A response to store.
        public init(status: Int, contentType: String?, body: Data, retryAfter: String?) {
            self.status = status
            self.contentType = contentType
            self.body = body
            self.retryAfter = retryAfter
        }
    }

    /// What a key holds.
    public enum Record: Sendable, Equatable {
        /// A request with this fingerprint holds the key and is still running.
        case pending(fingerprint: String)
        /// A request with this fingerprint was answered with this response.
        case complete(fingerprint: String, Response)
    }

    let table: String
    let client: PostgresClient
    let logger: Logger

    /// Claims a key for a request, atomically (`INSERT … ON CONFLICT DO UPDATE … WHERE`): it succeeds when the key is
    /// new, when its record was created at or before `expiredAtOrBefore`, or when it is pending for the same fingerprint and
    /// not touched since `staleBefore` (its process died). Exactly one of several concurrent claims succeeds.
    /// - Parameters:
    ///   - key: The scoped key (user and `Idempotency-Key`).
    ///   - fingerprint: What the request was (method, path, query, body hash).
    ///   - claim: This attempt's id, which ``complete(key:claim:response:now:)`` and ``release(key:claim:)`` name.
    ///   - now: The time the record is created and touched.
    ///   - expiredAtOrBefore: Records created at or before it are gone.
    ///   - staleBefore: Pending records not touched since may be taken over.
    /// - Returns: Whether this attempt holds the key now.
    /// - Throws: ``DiaryError`` when the database refuses.
    public func claim(
        key: String, fingerprint: String, claim: UUID, now: Date, expiredAtOrBefore: Date, staleBefore: Date
    ) async throws -> Bool {
        var bindings = PostgresBindings()
        bindings.append(key)
        bindings.append(fingerprint)
        bindings.append(claim)
        bindings.append(now)
        bindings.append(expiredAtOrBefore)
        bindings.append(staleBefore)
        let query = PostgresQuery(
            unsafeSQL: """
                INSERT INTO \(table) AS r (key, fingerprint, state, claim, created_at, updated_at) \
                VALUES ($1, $2, 'pending', $3, $4, $4) \
                ON CONFLICT (key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'pending', \
                claim = EXCLUDED.claim, status = NULL, content_type = NULL, body = NULL, retry_after = NULL, \
                created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at \
                WHERE r.created_at <= $5 OR (r.state = 'pending' AND r.updated_at < $6 AND r.fingerprint = EXCLUDED.fingerprint) \
                RETURNING claim
                """, binds: bindings)
        do {
            for try await holder in try await client.query(query, logger: logger).decode(UUID.self) {
                return holder == claim
            }
            return false
        } catch {
            throw DiaryError.postgres(error, "idempotency.claim")
        }
    }

    /// What a key holds, `nil` when it holds nothing created after `createdAfter`.
    /// - Throws: ``DiaryError`` when the database refuses.
    public func record(key: String, createdAfter: Date) async throws -> Record? {
        var statement = SQLStatement(
            "SELECT fingerprint, state, status, content_type, body, retry_after FROM \(table) WHERE key = ")
        statement.bind(key)
        statement.append(" AND created_at > ")
        statement.bind(createdAfter)
        do {
            let rows = try await client.query(statement.query, logger: logger)
                .decode((String, String, Int?, String?, ByteBuffer?, String?).self)
            for try await (fingerprint, state, status, contentType, body, retryAfter) in rows {
                guard state == "complete", let status else { return .pending(fingerprint: fingerprint) }
                let data = body.map { Data($0.readableBytesView) } ?? Data()
                return .complete(
                    fingerprint: fingerprint,
                    Response(status: status, contentType: contentType, body: data, retryAfter: retryAfter))
            }
            return nil
        } catch {
            throw DiaryError.postgres(error, "idempotency.record")
        }
    }

    /// Stores the response of the attempt holding a key, so later requests replay it.
    /// - Returns: Whether the attempt still held the key (a stale claim may have been taken over).
    /// - Throws: ``DiaryError`` when the database refuses.
    @discardableResult
    public func complete(key: String, claim: UUID, response: Response, now: Date) async throws -> Bool {
        var statement = SQLStatement("UPDATE \(table) SET state = 'complete', status = ")
        statement.bind(response.status)
        statement.append(", content_type = ")
        statement.bind(response.contentType)
        statement.append(", body = ")
        statement.bind(ByteBuffer(data: response.body))
        statement.append(", retry_after = ")
        statement.bind(response.retryAfter)
        statement.append(", updated_at = ")
        statement.bind(now)
        statement.append(" WHERE key = ")
        statement.bind(key)
        statement.append(" AND claim = ")
        statement.bind(claim)
        statement.append(" RETURNING 1")
        return try await returnsRow(statement, "idempotency.complete")
    }

    /// Marks the attempt holding a key as alive, so no other process takes its claim over as stale.
    /// - Returns: Whether the attempt still holds the key.
    /// - Throws: ``DiaryError`` when the database refuses.
    @discardableResult
    public func touch(key: String, claim: UUID, now: Date) async throws -> Bool {
        var statement = SQLStatement("UPDATE \(table) SET updated_at = ")
        statement.bind(now)
        statement.append(" WHERE key = ")
        statement.bind(key)
        statement.append(" AND claim = ")
        statement.bind(claim)
        statement.append(" AND state = 'pending' RETURNING 1")
        return try await returnsRow(statement, "idempotency.touch")
    }

    /// Deletes the record of the attempt holding a key (its response is not kept: a retry runs again).
    /// - Throws: ``DiaryError`` when the database refuses.
    public func release(key: String, claim: UUID) async throws {
        var statement = SQLStatement("DELETE FROM \(table) WHERE key = ")
        statement.bind(key)
        statement.append(" AND claim = ")
        statement.bind(claim)
        statement.append(" RETURNING 1")
        _ = try await returnsRow(statement, "idempotency.release")
    }

    /// Deletes up to `limit` records created at or before a date, oldest first (bounded work, on the `created_at` index).
    /// - Returns: How many were deleted.
    /// - Throws: ``DiaryError`` when the database refuses.
    @discardableResult
    public func removeExpired(createdAtOrBefore date: Date, limit: Int) async throws -> Int {
        let statement = SQLStatement.deleteOldest(from: table, key: "key", where: "created_at", "<=", date, limit: limit)
        return try await client.count(statement.query, logger: logger, operation: "idempotency.removeExpired")
    }

    /// The number of records (for tests and operators).
    /// - Throws: ``DiaryError`` when the database refuses.
    public func count() async throws -> Int {
        try await client.count(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: logger, operation: "idempotency.count")
    }

    private func returnsRow(_ statement: SQLStatement, _ operation: String) async throws -> Bool {
        do {
            for try await _ in try await client.query(statement.query, logger: logger) {
                return true
            }
            return false
        } catch {
            throw DiaryError.postgres(error, operation)
        }
    }
}

extension PostgresDiaryStorage {
    /// A table of idempotency records in the store's schema, created when absent (``PostgresIdempotencyTable``).
    /// - Parameter name: The table's name: a lowercase identifier (a-z, 0-9, _), not one of the store's own tables.
    /// - Returns: The table, on the store's pool; it works until ``shutdown()``.
    /// - Throws: ``DiaryError``: `.server` for a name that is not a lowercase identifier, else when the database
    ///   refuses.
    public func idempotencyTable(named name: String) async throws -> PostgresIdempotencyTable {
        let (table, createdIndex) = try serverTableNames(name, indexSuffix: "created")
        try await createServerTable(
            table,
            statements: [
                """
                CREATE TABLE IF NOT EXISTS \(table) (key text PRIMARY KEY, fingerprint text NOT NULL, \
                state text NOT NULL CHECK (state IN ('pending', 'complete')), claim uuid NOT NULL, status integer, \
                content_type text, body bytea, retry_after text, created_at timestamptz NOT NULL, \
                updated_at timestamptz NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS \(createdIndex) ON \(table) (created_at)",
            ], operation: "storage.idempotencyTable")
        return PostgresIdempotencyTable(table: table, client: client, logger: logger)
    }
}
