import Foundation

/// Token buckets by client, for ``AuthRateLimit``: in this process's memory (``RateLimiter``, the file store and
/// `--in-memory`), or in the database, shared by every process on it (``PostgresRateLimiter``), so a client has one
/// budget however many instances serve it.
///
/// A limiter of your own answers one question per request, atomically for the client's bucket:
///
/// ```swift
/// final class MyLimiter: ClientRateLimiter {
///     let buckets = Protected<[String: Int]>([:])
///     func take(from client: String) async throws -> TimeInterval? {
///         buckets.withLock { buckets in
///             guard buckets[client, default: 0] < 10 else { return 60 }   // no refill: an example only
///             buckets[client, default: 0] += 1
///             return nil
///         }
///     }
/// }
/// ```
protocol ClientRateLimiter: Sendable {
    /// Takes one request from a client's bucket.
    /// - Parameter client: The client's key (its address, see ``AuthRateLimit/clientKey(_:)``).
    /// - Returns: `nil` when the request may go ahead, or the seconds until the client may try again.
    /// - Throws: ``DiaryError`` when the buckets cannot be reached.
    func take(from client: String) async throws -> TimeInterval?
}

extension RateLimiter: ClientRateLimiter {
    func take(from client: String) async throws -> TimeInterval? {
        take(client)
    }
}
