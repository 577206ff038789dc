import Foundation

extension HTTPBackend {
    /// The key the write requests of the current task send, set by ``withIdempotencyKey(_:_:)``.
    @TaskLocal static var chosenIdempotencyKey: String?

    /// Runs `operation` with the write requests it sends carrying `key` as their `Idempotency-Key`, instead of a key
    /// drawn for each call.
    ///
    /// Every write this backend sends carries a key, and the server answers a retried key with the answer it gave
    /// the first time rather than running the write again (docs/REST.md, "Retries"). The key drawn per call covers
    /// the retries this backend makes itself; a write that must survive the process — an outbox that sends it again
    /// after a restart — chooses its key once, stores it with the write, and sends every attempt under it:
    ///
    /// ```swift
    /// let entry = try await HTTPBackend.withIdempotencyKey(queued.key) {
    ///     try await backend.repositories.diaries.write(queued.draft)
    /// }
    /// ```
    ///
    /// Use it around one repository call: two different writes under one key would be taken for one write retried.
    /// Reads (`GET`) carry no key.
    /// - Parameters:
    ///   - key: The key, at most 255 visible ASCII characters (a lowercase UUID works).
    ///   - operation: The call to make.
    public static func withIdempotencyKey<Result>(
        _ key: String, _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $chosenIdempotencyKey.withValue(key, operation: operation)
    }
}
