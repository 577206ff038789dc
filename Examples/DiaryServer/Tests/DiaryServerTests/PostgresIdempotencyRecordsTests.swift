@_spi(Storage) import DiaryPostgres
import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// The idempotency records on PostgreSQL: the memory store's contract (replay, mismatch, waiting retries, 5xx not
/// kept, expiry), held across two instances on one schema, plus stale claims, the body bound and the sweep. Runs
/// with `DIARY_TEST_DATABASE_URL`; with `CI=true` and no database it fails.
@Suite("PostgreSQL idempotency records", .enabled(if: PostgresTestSchema.enabled))
struct PostgresIdempotencyRecordsTests {
    typealias Clock = IdempotencyStoreTests.Clock

    /// Counts how often work ran; each run answers a body of its own, so a replay is told from a second run.
    final class Runs: Sendable {
        private let counter = Protected(0)
        private let starts = Protected(0)
        /// How many runs finished.
        var count: Int { counter.current }
        /// How many runs began (after their attempt claimed the key).
        var started: Int { starts.current }
        func work(status: Int = 201, bytes: Int = 0, delay: Duration = .zero) -> @Sendable () async -> StoredResponse {
            { [counter, starts] in
                starts.withLock { $0 += 1 }
                try? await Task.sleep(for: delay)
                let run = counter.withLock { count -> Int in
                    count += 1
                    return count
                }
                return StoredResponse(
                    status: status, contentType: "application/json",
                    body: Data("{\"run\":\(run)}".utf8) + Data(repeating: 0x20, count: bytes),
                    retryAfter: status == 429 ? "7" : nil)
            }
        }
    }

    static func response(_ outcome: IdempotencyOutcome) -> (StoredResponse, replayed: Bool)? {
        if case .response(let stored, let replayed) = outcome { return (stored, replayed) }
        return nil
    }

    static func records(
        _ backend: DatabaseBackend, _ configuration: PostgresIdempotencyRecords.Configuration = .init(),
        clock: Clock? = nil
    ) async throws -> PostgresIdempotencyRecords {
        let storage = try #require(backend.storage as? PostgresDiaryStorage)
        guard let clock else { return try await PostgresIdempotencyRecords(storage: storage, configuration: configuration) }
        return try await PostgresIdempotencyRecords(storage: storage, configuration: configuration, now: { clock.now })
    }

    @Test func aWorldOnPostgresKeepsItsRecordsInTheDatabase() async throws {
        try await PostgresTestSchema.with(instances: 1, prefix: "idem") { schema in
            let records = try await schema.instances[0].makeIdempotencyRecords()
            #expect(records is PostgresIdempotencyRecords)
        }
    }

    @Test func aRetryOnAnotherInstanceReplaysTheFirstResponse() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "idem") { schema in
            let one = try await Self.records(schema.instances[0])
            let two = try await Self.records(schema.instances[1])
            let runs = Runs()
            let first = try #require(Self.response(try await one.run(key: "u|k", fingerprint: "f", runs.work(status: 429))))
            let second = try #require(Self.response(try await two.run(key: "u|k", fingerprint: "f", runs.work(status: 429))))
            #expect(first.replayed == false)
            #expect(second.replayed == true)
            #expect(second.0 == first.0, "status, content type, body and Retry-After come back as they were")
            #expect(first.0.retryAfter == "7")
            #expect(runs.count == 1)
            let other = try #require(Self.response(try await two.run(key: "u|other", fingerprint: "f", runs.work())))
            #expect(other.replayed == false, "another key is another request")
            #expect(runs.count == 2)
        }
    }

    @Test func aKeyReusedForAnotherRequestIsAMismatchOnEveryInstance() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "idem") { schema in
            let one = try await Self.records(schema.instances[0])
            let two = try await Self.records(schema.instances[1])
            let runs = Runs()
            _ = try await one.run(key: "k", fingerprint: "f", runs.work())
            for records in [one, two] {
                guard case .mismatch = try await records.run(key: "k", fingerprint: "other", runs.work()) else {
                    Issue.record("expected a mismatch")
                    return
                }
            }
            #expect(runs.count == 1)
        }
    }

    @Test func concurrentRetriesOnTwoInstancesRunTheWorkOnce() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "idem") { schema in
            let one = try await Self.records(schema.instances[0])
            let two = try await Self.records(schema.instances[1])
            let runs = Runs()
            let outcomes = try await withThrowingTaskGroup(of: IdempotencyOutcome.self) { group in
                for index in 0..<8 {
                    let records = index.isMultiple(of: 2) ? one : two
                    group.addTask { try await records.run(key: "k", fingerprint: "f", runs.work(delay: .milliseconds(300))) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let responses = outcomes.compactMap(Self.response)
            #expect(responses.count == 8)
            #expect(runs.count == 1)
            #expect(responses.filter { !$0.replayed }.count == 1)
            #expect(Set(responses.map(\.0.body)).count == 1, "every retry gets the first attempt's body")
        }
    }

    @Test func aServerErrorIsNotKeptSoARetryRunsAgain() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "idem") { schema in
            let one = try await Self.records(schema.instances[0])
            let two = try await Self.records(schema.instances[1])
            let runs = Runs()
            let failed = try #require(Self.response(try await one.run(key: "k", fingerprint: "f", runs.work(status: 503))))
            #expect(failed.0.status == 503)
            #expect(try await one.table.count() == 0)
            let retried = try #require(Self.response(try await two.run(key: "k", fingerprint: "f", runs.work())))
            #expect(retried.replayed == false)
            #expect(retried.0.status == 201)
            #expect(runs.count == 2)
        }
    }

    @Test func aBodyOverTheBoundIsSentButNotKept() async throws {
        try await PostgresTestSchema.with(instances: 1, prefix: "idem") { schema in
            var configuration = PostgresIdempotencyRecords.Configuration()
            configuration.maximumBodyBytes = 1_000
            let records = try await Self.records(schema.instances[0], configuration)
            let runs = Runs()
            let big = try #require(Self.response(try await records.run(key: "big", fingerprint: "f", runs.work(bytes: 2_000))))
            #expect(big.0.body.count > 2_000)
            #expect(Self.response(try await records.run(key: "big", fingerprint: "f", runs.work(bytes: 2_000)))?.replayed == false)
            #expect(Self.response(try await records.run(key: "small", fingerprint: "f", runs.work(bytes: 500)))?.replayed == false)
            #expect(Self.response(try await records.run(key: "small", fingerprint: "f", runs.work(bytes: 500)))?.replayed == true)
            #expect(runs.count == 3)
        }
    }

    @Test func aKeyExpiresAfterItsLifetimeAndTheSweepDeletesOldRows() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "idem") { schema in
            let clock = Clock()
            var configuration = PostgresIdempotencyRecords.Configuration()
            configuration.lifetime = 60
            configuration.sweepInterval = 1_000
            configuration.sweepLimit = 2
            let one = try await Self.records(schema.instances[0], configuration, clock: clock)
            let two = try await Self.records(schema.instances[1], configuration, clock: clock)
            let runs = Runs()
            _ = try await one.run(key: "a", fingerprint: "f", runs.work())
            clock.advance(59)
            #expect(Self.response(try await two.run(key: "a", fingerprint: "f", runs.work()))?.replayed == true)
            for key in ["b", "c", "d"] { _ = try await one.run(key: key, fingerprint: "f", runs.work()) }
            clock.advance(1)
            #expect(Self.response(try await two.run(key: "a", fingerprint: "f", runs.work()))?.replayed == false,
                "an expired key runs again, on any instance")
            #expect(runs.count == 5)
            clock.advance(60)
            #expect(try await one.table.count() == 4)
            #expect(try await one.removeExpired() == 2, "a sweep deletes at most its limit")
            #expect(try await one.removeExpired() == 2)
            #expect(try await one.removeExpired() == 0)
            #expect(try await one.table.count() == 0)
        }
    }

    @Test func aClaimLeftByADeadInstanceIsTakenOverOnceStale() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "idem") { schema in
            let clock = Clock()
            var configuration = PostgresIdempotencyRecords.Configuration()
            configuration.staleAfter = 30
            configuration.maximumWait = 3_600
            let two = try await Self.records(schema.instances[1], configuration, clock: clock)
            // The first instance claimed the key and died before it answered.
            let table = two.table
            #expect(try await table.claim(
                key: "k", fingerprint: "f", claim: UUID(), now: clock.now,
                expiredAtOrBefore: clock.now.addingTimeInterval(-86_400), staleBefore: clock.now.addingTimeInterval(-30)))
            let runs = Runs()
            let retry = Task { try await two.run(key: "k", fingerprint: "f", runs.work()) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(runs.count == 0, "a fresh claim is waited for")
            guard case .mismatch = try await two.run(key: "k", fingerprint: "other", runs.work()) else {
                Issue.record("a pending key used for another request is a mismatch")
                return
            }
            clock.advance(31)
            let taken = try #require(Self.response(try await retry.value))
            #expect(taken.replayed == false)
            #expect(runs.count == 1)
            #expect(Self.response(try await two.run(key: "k", fingerprint: "f", runs.work()))?.replayed == true)
        }
    }

    @Test func aRetryGivesUpWithUnavailableAfterTheLongestWait() async throws {
        try await PostgresTestSchema.with(instances: 1, prefix: "idem") { schema in
            var configuration = PostgresIdempotencyRecords.Configuration()
            configuration.maximumWait = 0.3
            let records = try await Self.records(schema.instances[0], configuration)
            let runs = Runs()
            let first = Task { try await records.run(key: "k", fingerprint: "f", runs.work(delay: .seconds(3))) }
            // Until the first attempt holds the key (a fixed pause lost the race on a loaded machine: the retry
            // claimed the key first and ran the work itself).
            for _ in 0..<1000 where runs.started == 0 { try await Task.sleep(for: .milliseconds(10)) }
            try #require(runs.started == 1)
            let error = await #expect(throws: DiaryError.self) {
                try await records.run(key: "k", fingerprint: "f", runs.work())
            }
            #expect(error?.code == .unavailable)
            #expect(error?.retryAfter == 1)
            #expect(Self.response(try await first.value)?.replayed == false)
            #expect(runs.count == 1)
        }
    }

    @Test func theRunningAttemptTouchesItsClaimSoItIsNotTakenOver() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "idem") { schema in
            var configuration = PostgresIdempotencyRecords.Configuration()
            configuration.staleAfter = 1.5
            let one = try await Self.records(schema.instances[0], configuration)
            let two = try await Self.records(schema.instances[1], configuration)
            let runs = Runs()
            async let first = one.run(key: "k", fingerprint: "f", runs.work(delay: .seconds(4)))
            // Until the first attempt holds the key (see the longest-wait check).
            for _ in 0..<1000 where runs.started == 0 { try await Task.sleep(for: .milliseconds(10)) }
            try #require(runs.started == 1)
            async let second = two.run(key: "k", fingerprint: "f", runs.work(delay: .seconds(4)))
            let (a, b) = try await (first, second)
            #expect(runs.count == 1, "the work outlived staleAfter twice over and still ran once")
            #expect(Self.response(a)?.replayed == false)
            #expect(Self.response(b)?.replayed == true)
            #expect(Self.response(a)?.0 == Self.response(b)?.0)
        }
    }
}
