@_spi(Storage) import DiaryPostgres
import DiarySDK
import Foundation

/// Idempotency records in the world's PostgreSQL schema (table `idempotency_records`), so a retried write is
/// answered once whichever server process on the database it reaches.
///
/// - The first request claims its key in one statement (`INSERT … ON CONFLICT`); exactly one of several concurrent
///   requests on any process wins and runs the work, and touches its claim while the work runs.
/// - A request whose key is held by a running request with the same fingerprint polls the row (from 10 ms, doubling
///   up to 250 ms) until the response is stored, and replays it; after ``Configuration/maximumWait`` it gives up with
///   `503` and `Retry-After` (it is not kept, so its own retry waits again). A claim not touched for
///   ``Configuration/staleAfter`` (its process died) is taken over by the next request.
/// - A 5xx response, or a body larger than ``Configuration/maximumBodyBytes``, is not kept: the row is deleted.
/// - Records expire ``Configuration/lifetime`` after the first request; every ``Configuration/sweepInterval``-th call
///   deletes up to ``Configuration/sweepLimit`` expired rows, so the work per call stays bounded.
final class PostgresIdempotencyRecords: IdempotencyRecords {
    /// The table's name in the world's schema.
    static let tableName = "idempotency_records"

    /// Lifetime, waits and bounds.
    struct Configuration: Sendable {
        /// How long a key is remembered.
        var lifetime: TimeInterval = 24 * 60 * 60
        /// How long a claim may go untouched before another request takes it over (the running one touches it
        /// every third of this).
        var staleAfter: TimeInterval = 30
        /// How long a retry waits for the first request before it answers `503`.
        var maximumWait: TimeInterval = 60
        /// The largest body kept; a larger response is sent but not kept.
        var maximumBodyBytes = 1024 * 1024
        /// Calls between two sweeps of expired rows.
        var sweepInterval = 16
        /// The most expired rows one sweep deletes.
        var sweepLimit = 100
    }

    let table: PostgresIdempotencyTable
    let configuration: Configuration
    private let now: @Sendable () -> Date
    private let calls = Protected(0)

    /// Opens the records of `storage`'s schema, creating the table when absent.
    /// - Parameters:
    ///   - storage: The world's store.
    ///   - configuration: Lifetime, waits and bounds.
    ///   - now: The clock (tests pass their own).
    /// - Throws: ``DiaryError`` when the database refuses.
    init(
        storage: PostgresDiaryStorage, configuration: Configuration = .init(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws {
        table = try await storage.idempotencyTable(named: Self.tableName)
        self.configuration = configuration
        self.now = now
    }

    func run(
        key: String, fingerprint: String, _ work: @escaping @Sendable () async -> StoredResponse
    ) async throws -> IdempotencyOutcome {
        try await sweepIfDue()
        let claim = UUID()
        let started = now()
        var delay = 0.01
        while true {
            let date = now()
            let expiredAtOrBefore = date.addingTimeInterval(-configuration.lifetime)
            if try await table.claim(
                key: key, fingerprint: fingerprint, claim: claim, now: date, expiredAtOrBefore: expiredAtOrBefore,
                staleBefore: date.addingTimeInterval(-configuration.staleAfter))
            {
                return .response(await runClaimed(key: key, claim: claim, work), replayed: false)
            }
            switch try await table.record(key: key, createdAfter: expiredAtOrBefore) {
            case .complete(let held, let response)?:
                guard held == fingerprint else { return .mismatch }
                return .response(
                    StoredResponse(
                        status: response.status, contentType: response.contentType, body: response.body,
                        retryAfter: response.retryAfter),
                    replayed: true)
            case .pending(let held)?:
                guard held == fingerprint else { return .mismatch }
            case nil:
                break  // released or expired since the claim: claim again
            }
            guard now().timeIntervalSince(started) < configuration.maximumWait else {
                throw DiaryError(
                    .unavailable, "the first request with this Idempotency-Key is still running; try again later",
                    retryAfter: 1)
            }
            try await Task.sleep(for: .seconds(delay))
            delay = min(delay * 2, 0.25)
        }
    }

    /// Deletes up to ``Configuration/sweepLimit`` expired rows now.
    /// - Returns: How many were deleted.
    @discardableResult
    func removeExpired() async throws -> Int {
        try await table.removeExpired(
            createdAtOrBefore: now().addingTimeInterval(-configuration.lifetime), limit: configuration.sweepLimit)
    }

    /// Runs the work of a claimed key to the end (in a task of its own, as the memory store does, so a cancelled
    /// request does not leave half a write), touching the claim meanwhile, then keeps or releases the response.
    private func runClaimed(
        key: String, claim: UUID, _ work: @escaping @Sendable () async -> StoredResponse
    ) async -> StoredResponse {
        let table = self.table
        let now = self.now
        let interval = configuration.staleAfter / 3
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard !Task.isCancelled else { return }
                _ = try? await table.touch(key: key, claim: claim, now: now())
            }
        }
        let stored = await Task { await work() }.value
        heartbeat.cancel()
        do {
            if stored.status >= 500 || stored.body.count > configuration.maximumBodyBytes {
                try await table.release(key: key, claim: claim)
            } else {
                try await table.complete(
                    key: key, claim: claim,
                    response: .init(
                        status: stored.status, contentType: stored.contentType, body: stored.body,
                        retryAfter: stored.retryAfter),
                    now: now())
            }
        } catch {
            // The response was made; a retry finds the claim stale after `staleAfter` and runs again.
            try? await table.release(key: key, claim: claim)
        }
        return stored
    }

    private func sweepIfDue() async throws {
        let due = calls.withLock { calls -> Bool in
            calls += 1
            return calls % max(configuration.sweepInterval, 1) == 0
        }
        if due { _ = try? await removeExpired() }
    }
}
