@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// Token buckets by client beside a store's tables and on its pool, so every process on the database draws on the
/// same bucket for a client.
///
/// The table is `(key text PRIMARY KEY, tokens double precision, taken boolean, updated_at timestamptz)` with an
/// index on `updated_at` for the sweep, created by ``PostgresDiaryStorage/rateLimitTable(named:)`` when absent.
///
/// ```swift
/// let buckets = try await storage.rateLimitTable(named: "auth_rate_limits")
/// if let wait = try await buckets.take(key: "192.0.2.1", capacity: 10, period: 60, now: Date()) {
///     throw DiaryError(.rateLimited, "too many attempts", retryAfter: wait)
/// }
/// ```
@_spi(Storage)
public struct PostgresRateLimitTable: Sendable {
    let table: String
    let client: PostgresClient
    let logger: Logger

    /// Takes one token from a client's bucket in one statement (`INSERT … ON CONFLICT (key) DO UPDATE`): the bucket
    /// is refilled for the time since it was last used, at `capacity / period` per second up to `capacity`, and a
    /// token is taken when there is one. Concurrent takes on any process queue on the row, each seeing the last.
    /// - Parameters:
    ///   - key: The client.
    ///   - capacity: Tokens a full bucket holds (at least 1).
    ///   - period: Seconds to refill an empty bucket.
    ///   - now: The time of the take (a bucket's time never goes back, whatever the clocks of the processes).
    /// - Returns: `nil` when a token was taken, else the seconds until one will be there.
    /// - Throws: ``DiaryError`` when the database refuses.
    public func take(key: String, capacity: Int, period: TimeInterval, now: Date) async throws -> TimeInterval? {
        let full = Double(max(capacity, 1))
        let rate = full / max(period, 0.001)
        var bindings = PostgresBindings()
        bindings.append(key)
        bindings.append(full)
        bindings.append(rate)
        bindings.append(now)
        let refilled = "least($2, b.tokens + greatest(0, extract(epoch FROM ($4 - b.updated_at))::float8) * $3)"
        let query = PostgresQuery(
            unsafeSQL: """
                INSERT INTO \(table) AS b (key, tokens, taken, updated_at) VALUES ($1, $2 - 1, true, $4) \
                ON CONFLICT (key) DO UPDATE SET taken = \(refilled) >= 1, \
                tokens = \(refilled) - CASE WHEN \(refilled) >= 1 THEN 1 ELSE 0 END, \
                updated_at = greatest(b.updated_at, $4) \
                RETURNING taken, tokens
                """, binds: bindings)
        do {
            for try await (taken, tokens) in try await client.query(query, logger: logger).decode((Bool, Double).self) {
                return taken ? nil : max(0, 1 - tokens) / rate
            }
            throw DiaryError(.server, "rateLimit.take returned no row")
        } catch {
            throw DiaryError.postgres(error, "rateLimit.take")
        }
    }

    /// Deletes up to `limit` buckets not used since a date (pass one at least a period back: such a bucket is full,
    /// the same as none), oldest first, on the `updated_at` index.
    /// - Returns: How many were deleted.
    /// - Throws: ``DiaryError`` when the database refuses.
    @discardableResult
    public func removeIdle(since date: Date, limit: Int) async throws -> Int {
        let statement = SQLStatement.deleteOldest(from: table, key: "key", where: "updated_at", "<", date, limit: limit)
        return try await client.count(statement.query, logger: logger, operation: "rateLimit.removeIdle")
    }

    /// The number of buckets held (for tests and operators).
    /// - Throws: ``DiaryError`` when the database refuses.
    public func count() async throws -> Int {
        try await client.count(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: logger, operation: "rateLimit.count")
    }
}

extension PostgresDiaryStorage {
    /// A table of token buckets in the store's schema, created when absent (``PostgresRateLimitTable``).
    /// - Parameter name: The table's name: a lowercase identifier (a-z, 0-9, _), not one of the store's own tables.
    /// - Returns: The table, on the store's pool; it works until ``shutdown()``.
    /// - Throws: ``DiaryError``: `.server` for a name that is not a lowercase identifier, else when the database
    ///   refuses.
    public func rateLimitTable(named name: String) async throws -> PostgresRateLimitTable {
        let (table, updatedIndex) = try serverTableNames(name, indexSuffix: "updated")
        try await createServerTable(
            table,
            statements: [
                """
                CREATE TABLE IF NOT EXISTS \(table) (key text PRIMARY KEY, tokens double precision NOT NULL, \
                taken boolean NOT NULL, updated_at timestamptz NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS \(updatedIndex) ON \(table) (updated_at)",
            ], operation: "storage.rateLimitTable")
        return PostgresRateLimitTable(table: table, client: client, logger: logger)
    }
}
