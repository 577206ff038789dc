@_spi(Storage) import DiaryPostgres
import DiarySDK
import Foundation

/// Token buckets in the main world's PostgreSQL schema (table `auth_rate_limits`), so every server process on the
/// database draws on one bucket per client: `capacity` requests at once, earned back at `capacity / period` per
/// second. Each take is one atomic statement (``PostgresRateLimitTable/take(key:capacity:period:now:)``).
///
/// Every ``Configuration/sweepInterval``-th take deletes up to ``Configuration/sweepLimit`` buckets unused for a
/// period (full again, the same as none), so the table holds about the clients of the last period and the work per
/// take stays bounded.
///
/// A refusal is also remembered in this process until the client's wait is over, and repeated requests in that time
/// are refused from memory without a statement: a flood from one address costs the database one statement per wait,
/// not one per request. That answer is the database's own: a bucket only earns tokens with time, so nothing another
/// instance does can shorten the wait.
final class PostgresRateLimiter: ClientRateLimiter {
    /// The table's name in the schema.
    static let tableName = "auth_rate_limits"

    /// How often stale buckets are swept.
    struct Configuration: Sendable {
        /// Takes between two sweeps.
        var sweepInterval = 64
        /// The most buckets one sweep deletes.
        var sweepLimit = 500
        /// The most refused clients remembered in this process (beyond it, the expired ones go, then all of them).
        var maximumRefusedClients = 10_000
    }

    /// Requests a client may make in a burst (and per `period`); 0 lets everything through.
    let capacity: Int
    /// Seconds over which a client earns `capacity` requests back.
    let period: TimeInterval
    let table: PostgresRateLimitTable
    private let configuration: Configuration
    private let now: @Sendable () -> Date
    private let takes = Protected(0)
    /// Until when each recently refused client is refused.
    private let refusedUntil = Protected<[String: Date]>([:])

    /// Opens the buckets of `storage`'s schema, creating the table when absent.
    /// - Parameters:
    ///   - storage: The main world's store.
    ///   - capacity: Requests a client may make in a burst, and per `period`; 0 lets everything through.
    ///   - period: Seconds over which a client earns `capacity` requests back.
    ///   - configuration: How often stale buckets are swept.
    ///   - now: The clock (tests pass their own).
    /// - Throws: ``DiaryError`` when the database refuses.
    init(
        storage: PostgresDiaryStorage, capacity: Int, period: TimeInterval, configuration: Configuration = .init(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws {
        table = try await storage.rateLimitTable(named: Self.tableName)
        self.capacity = capacity
        self.period = max(period, 0.001)
        self.configuration = configuration
        self.now = now
    }

    func take(from client: String) async throws -> TimeInterval? {
        guard capacity > 0 else { return nil }
        let date = now()
        if let until = refusedUntil.withLock({ $0[client] }), until > date {
            return until.timeIntervalSince(date)
        }
        let due = takes.withLock { takes -> Bool in
            takes += 1
            return takes % max(configuration.sweepInterval, 1) == 0
        }
        if due { _ = try? await removeIdle(at: date) }
        let wait = try await table.take(key: client, capacity: capacity, period: period, now: date)
        refusedUntil.withLock { refused in
            guard let wait else {
                refused[client] = nil
                return
            }
            if refused.count >= configuration.maximumRefusedClients {
                refused = refused.filter { $0.value > date }
                if refused.count >= configuration.maximumRefusedClients { refused.removeAll() }
            }
            refused[client] = date.addingTimeInterval(wait)
        }
        return wait
    }

    /// The number of refused clients remembered (for tests).
    var refusedClients: Int { refusedUntil.withLock { $0.count } }

    /// Deletes up to ``Configuration/sweepLimit`` buckets unused for a period before `date`.
    /// - Returns: How many were deleted.
    @discardableResult
    func removeIdle(at date: Date) async throws -> Int {
        try await table.removeIdle(since: date.addingTimeInterval(-period), limit: configuration.sweepLimit)
    }
}
