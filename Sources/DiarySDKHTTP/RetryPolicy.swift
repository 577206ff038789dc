import Foundation

/// When and how ``HTTPBackend`` retries a failed request.
///
/// Only idempotent requests are retried: `GET`, `PUT` and `DELETE`, and writes that carry an `Idempotency-Key`
/// (every write the backend sends does). A request is retried after a dropped connection, a timeout, or a 500, 502,
/// 503, 504 or 429 answer. The wait is exponential backoff with full jitter (a random delay between zero and
/// `baseDelay × 2^attempt`, capped at `maximumDelay`), unless the server sent `Retry-After`, which is honoured as
/// long as it is no longer than `maximumRetryAfter`.
///
/// ```swift
/// var configuration = HTTPBackend.Configuration(baseURL: url)
/// configuration.retry = RetryPolicy(maximumAttempts: 5, baseDelay: 0.2)
/// ```
public struct RetryPolicy: Hashable, Sendable {
    /// Attempts in all, the first included; 1 turns retries off.
    public var maximumAttempts: Int
    /// The backoff unit, in seconds.
    public var baseDelay: TimeInterval
    /// The longest backoff wait, in seconds.
    public var maximumDelay: TimeInterval
    /// The longest `Retry-After` the backend waits for; a longer one fails at once with the server's error (whose
    /// ``DiaryError/retryAfter`` says when to try again).
    public var maximumRetryAfter: TimeInterval

    /// Creates a policy.
    /// - Parameters:
    ///   - maximumAttempts: Attempts in all (at least 1); 3 by default.
    ///   - baseDelay: The backoff unit; 0.25 s by default.
    ///   - maximumDelay: The longest backoff; 8 s by default.
    ///   - maximumRetryAfter: The longest `Retry-After` honoured; 30 s by default.
    public init(
        maximumAttempts: Int = 3, baseDelay: TimeInterval = 0.25, maximumDelay: TimeInterval = 8,
        maximumRetryAfter: TimeInterval = 30
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.maximumRetryAfter = max(0, maximumRetryAfter)
    }

    /// No retries at all.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The backoff before retry number `attempt` (1 for the first retry): full jitter over the exponential bound.
    /// - Parameter attempt: The retry number.
    /// - Returns: Seconds to wait.
    public func backoff(beforeRetry attempt: Int) -> TimeInterval {
        let bound = min(maximumDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        return bound <= 0 ? 0 : Double.random(in: 0...bound)
    }

    /// Whether a status is worth retrying.
    /// - Parameter status: The HTTP status.
    /// - Returns: `true` for 429, 500, 502, 503 and 504.
    public static func isRetryable(status: Int) -> Bool {
        [429, 500, 502, 503, 504].contains(status)
    }

    /// Reads a `Retry-After` header: delay seconds or an HTTP date.
    /// - Parameters:
    ///   - value: The header value.
    ///   - now: The current time, for HTTP dates.
    /// - Returns: Seconds to wait (never negative), or `nil` when the value is neither form.
    public static func retryAfter(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = TimeInterval(trimmed), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE',' dd MMM yyyy HH':'mm':'ss 'GMT'"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
