import Foundation

/// A token bucket per client: each client may make `capacity` requests at once, and earns them back at
/// `capacity / period` per second. What keeps sign-up, sign-in and the email availability check from being used to
/// guess passwords or list registered emails.
///
/// Memory and cost stay bounded whatever the clients do: buckets that have refilled are swept when the table has
/// doubled since the last sweep (so a request costs amortised O(1)), and at most `maximumClients` buckets are kept.
/// Past that, clients without a bucket of their own share one, so a flood of new addresses is limited as one client
/// instead of growing the table.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    private struct Table {
        var buckets: [String: Bucket] = [:]
        /// The size at which the next sweep runs.
        var sweepAt: Int
    }

    /// The key shared by clients that arrive while the table is full.
    static let overflowKey = "\u{0}overflow"

    /// Requests a client may make in a burst (and per `period`).
    let capacity: Int
    /// Seconds over which a client earns `capacity` requests back.
    let period: TimeInterval
    /// The most clients with a bucket of their own.
    let maximumClients: Int
    private let minimumSweep: Int
    private let table: Protected<Table>

    /// Creates a limiter; a capacity of 0 lets everything through.
    /// - Parameters:
    ///   - capacity: Requests a client may make in a burst, and per `period`.
    ///   - period: Seconds over which a client earns `capacity` requests back.
    ///   - maximumClients: The most clients with a bucket of their own (100,000 by default: a few MiB).
    init(capacity: Int, period: TimeInterval, maximumClients: Int = 100_000) {
        self.capacity = capacity
        self.period = max(period, 0.001)
        self.maximumClients = max(maximumClients, 1)
        self.minimumSweep = min(1_024, self.maximumClients)
        self.table = Protected(Table(sweepAt: minimumSweep))
    }

    /// The number of buckets held (for tests).
    var clientCount: Int { table.withLock { $0.buckets.count } }

    /// Takes one request from a client's bucket.
    /// - Parameters:
    ///   - key: The client (its address).
    ///   - now: The current time.
    /// - Returns: `nil` when the request may go ahead, or the seconds until the client may try again.
    /// - Complexity: Amortised O(1).
    func take(_ key: String, now: Date = Date()) -> TimeInterval? {
        guard capacity > 0 else { return nil }
        let rate = Double(capacity) / period
        let full = Double(capacity)
        return table.withLock { table in
            var key = key
            if table.buckets[key] == nil {
                if table.buckets.count >= table.sweepAt {
                    // A bucket that has refilled is the same as no bucket: drop it.
                    table.buckets = table.buckets.filter { now.timeIntervalSince($0.value.updatedAt) * rate + $0.value.tokens < full }
                    table.sweepAt = max(minimumSweep, table.buckets.count * 2)
                }
                if table.buckets.count >= maximumClients { key = Self.overflowKey }
            }
            var bucket = table.buckets[key] ?? Bucket(tokens: full, updatedAt: now)
            bucket.tokens = min(full, bucket.tokens + max(0, now.timeIntervalSince(bucket.updatedAt)) * rate)
            bucket.updatedAt = now
            defer { table.buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
    }
}
