import Foundation

/// A token bucket per client: each client may make `capacity` requests at once, and earns them back at
/// `capacity / period` per second. What keeps sign-in and the email availability check from being used to guess
/// passwords or list registered emails.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    /// Requests a client may make in a burst (and per `period`).
    let capacity: Int
    /// Seconds over which a client earns `capacity` requests back.
    let period: TimeInterval
    private let buckets = Protected<[String: Bucket]>([:])

    /// Creates a limiter; a capacity of 0 lets everything through.
    init(capacity: Int, period: TimeInterval) {
        self.capacity = capacity
        self.period = max(period, 0.001)
    }

    /// Takes one request from a client's bucket.
    /// - Parameters:
    ///   - key: The client (its address).
    ///   - now: The current time.
    /// - Returns: `nil` when the request may go ahead, or the seconds until the client may try again.
    func take(_ key: String, now: Date = Date()) -> TimeInterval? {
        guard capacity > 0 else { return nil }
        let rate = Double(capacity) / period
        return buckets.withLock { table in
            if table.count > 10_000 {
                table = table.filter { now.timeIntervalSince($0.value.updatedAt) * rate + $0.value.tokens < Double(capacity) }
            }
            var bucket = table[key] ?? Bucket(tokens: Double(capacity), updatedAt: now)
            bucket.tokens = min(Double(capacity), bucket.tokens + now.timeIntervalSince(bucket.updatedAt) * rate)
            bucket.updatedAt = now
            defer { table[key] = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
    }
}
