import Foundation

/// A response as idempotency records keep and replay it.
struct StoredResponse: Sendable, Equatable {
    var status: Int
    var contentType: String?
    var body: Data
    /// The `Retry-After` header, for a 429 or 503.
    var retryAfter: String? = nil
}

/// What a write with an `Idempotency-Key` gets from ``IdempotencyRecords/run(key:fingerprint:_:)``.
enum IdempotencyOutcome: Sendable {
    /// The response, and whether it is a replay of an earlier request's.
    case response(StoredResponse, replayed: Bool)
    /// The key was used before for a different request.
    case mismatch
}

/// Where a world remembers the response to each write by (user, `Idempotency-Key`), so a retried write returns the
/// first response instead of acting twice: in memory for one process (``IdempotencyStore``, the file store and
/// `--in-memory`), or in the database for every process on it (``PostgresIdempotencyRecords``).
///
/// The contract, whatever the implementation:
/// - the first request with a key runs `work`; a later one with the same fingerprint gets its response, marked
///   replayed, and one that arrives while the first is still running waits for it;
/// - a later one with another fingerprint gets ``IdempotencyOutcome/mismatch``;
/// - a 5xx response is not kept, so a retry runs again;
/// - a key is forgotten after a lifetime (a day), or earlier when a bound is reached: its retry runs again.
///
/// Records of your own, for one process, can wrap a dictionary of tasks in an actor:
///
/// ```swift
/// actor MyRecords: IdempotencyRecords {
///     private var tasks: [String: (fingerprint: String, task: Task<StoredResponse, Never>)] = [:]
///     func run(
///         key: String, fingerprint: String, _ work: @escaping @Sendable () async -> StoredResponse
///     ) async throws -> IdempotencyOutcome {
///         if let held = tasks[key] {
///             guard held.fingerprint == fingerprint else { return .mismatch }
///             return .response(await held.task.value, replayed: true)
///         }
///         let task = Task { await work() }
///         tasks[key] = (fingerprint, task)
///         let response = await task.value
///         if response.status >= 500 { tasks[key] = nil }
///         return .response(response, replayed: false)
///     }
/// }
/// ```
protocol IdempotencyRecords: Sendable {
    /// Runs `work` once per key; later calls with the same key replay its response.
    /// - Parameters:
    ///   - key: The scoped key (user and `Idempotency-Key`).
    ///   - fingerprint: What the request was (method, path, query and body hash).
    ///   - work: Answers the request; it runs at most once while its response is kept.
    /// - Returns: The response (first or replayed), or ``IdempotencyOutcome/mismatch``.
    /// - Throws: ``DiaryError`` when the records cannot be reached (`work` has not run then), or the first request
    ///   with the key has not finished within the wait the records allow.
    func run(
        key: String, fingerprint: String, _ work: @escaping @Sendable () async -> StoredResponse
    ) async throws -> IdempotencyOutcome
}
