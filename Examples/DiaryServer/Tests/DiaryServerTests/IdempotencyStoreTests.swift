import Foundation
import Testing

@testable import DiaryServer

/// The idempotency store on its own: replay, mismatch, expiry from the front, and its bounds.
@Suite("Idempotency store")
struct IdempotencyStoreTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let date = Protected(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { date.current }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    /// Counts how often work ran, per key.
    final class Runs: Sendable {
        private let counts = Protected<[String: Int]>([:])
        func count(_ key: String) -> Int { counts.current[key, default: 0] }
        func work(_ key: String, status: Int = 201, bytes: Int = 10) -> @Sendable () async -> IdempotencyStore.Stored {
            { [counts] in
                counts.withLock { $0[key, default: 0] += 1 }
                return .init(status: status, contentType: "application/json", body: Data(repeating: 0x61, count: bytes))
            }
        }
    }

    static func replayed(_ outcome: IdempotencyStore.Outcome) -> Bool? {
        if case .response(_, let replayed) = outcome { return replayed }
        return nil
    }

    @Test func aRepeatedKeyReplaysTheFirstResponseWithoutRunningAgain() async {
        let store = IdempotencyStore()
        let runs = Runs()
        #expect(Self.replayed(await store.run(key: "k", fingerprint: "f", runs.work("k"))) == false)
        #expect(Self.replayed(await store.run(key: "k", fingerprint: "f", runs.work("k"))) == true)
        #expect(runs.count("k") == 1)
    }

    @Test func aKeyReusedForAnotherRequestIsAMismatch() async {
        let store = IdempotencyStore()
        let runs = Runs()
        _ = await store.run(key: "k", fingerprint: "f", runs.work("k"))
        guard case .mismatch = await store.run(key: "k", fingerprint: "other", runs.work("k")) else {
            Issue.record("expected a mismatch")
            return
        }
        #expect(runs.count("k") == 1)
    }

    @Test func concurrentRetriesWaitForTheFirstAttempt() async {
        let store = IdempotencyStore()
        let runs = Runs()
        let slow: @Sendable () async -> IdempotencyStore.Stored = {
            try? await Task.sleep(nanoseconds: 50_000_000)
            return await runs.work("k")()
        }
        async let first = store.run(key: "k", fingerprint: "f", slow)
        async let second = store.run(key: "k", fingerprint: "f", slow)
        let outcomes = await [first, second].map(Self.replayed)
        #expect(outcomes.filter { $0 == false }.count == 1, "one ran")
        #expect(outcomes.filter { $0 == true }.count == 1, "one replayed it")
        #expect(runs.count("k") == 1)
    }

    @Test func aServerErrorIsNotKeptSoARetryRunsAgain() async {
        let store = IdempotencyStore()
        let runs = Runs()
        _ = await store.run(key: "k", fingerprint: "f", runs.work("k", status: 503))
        #expect(await store.count == 0)
        _ = await store.run(key: "k", fingerprint: "f", runs.work("k"))
        #expect(runs.count("k") == 2)
    }

    @Test func keysExpireAfterTheirLifetime() async {
        let clock = Clock()
        let store = IdempotencyStore(configuration: .init(lifetime: 60), now: { clock.now })
        let runs = Runs()
        _ = await store.run(key: "a", fingerprint: "f", runs.work("a"))
        clock.advance(30)
        _ = await store.run(key: "b", fingerprint: "f", runs.work("b"))
        clock.advance(31)
        _ = await store.run(key: "c", fingerprint: "f", runs.work("c"))
        #expect(await store.count == 2, "a expired, b and c are held")
        _ = await store.run(key: "a", fingerprint: "other", runs.work("a"))
        #expect(runs.count("a") == 2, "an expired key runs again, even for another request")
        #expect(Self.replayed(await store.run(key: "b", fingerprint: "f", runs.work("b"))) == true)
    }

    @Test func theStoreHoldsAtMostItsEntryBoundEvictingTheOldest() async {
        let store = IdempotencyStore(configuration: .init(maximumEntries: 100))
        let runs = Runs()
        for index in 0..<1_000 {
            _ = await store.run(key: "k\(index)", fingerprint: "f", runs.work("k\(index)"))
            #expect(await store.count <= 100)
        }
        #expect(Self.replayed(await store.run(key: "k999", fingerprint: "f", runs.work("k999"))) == true)
        #expect(Self.replayed(await store.run(key: "k0", fingerprint: "f", runs.work("k0"))) == false, "the oldest left first")
    }

    @Test func theStoreHoldsAtMostItsByteBound() async {
        let store = IdempotencyStore(configuration: .init(maximumBytes: 20_000))
        let runs = Runs()
        for index in 0..<200 {
            _ = await store.run(key: "k\(index)", fingerprint: "f", runs.work("k\(index)", bytes: 1_000))
            #expect(await store.storedBytes <= 20_000)
        }
        #expect(await store.count > 10, "it keeps as many as fit")
        let huge = await store.run(key: "huge", fingerprint: "f", runs.work("huge", bytes: 50_000))
        #expect(Self.replayed(huge) == false, "a response over the whole bound is still answered")
        #expect(await store.storedBytes <= 20_000)
    }

    @Test func keysDroppedAfterServerErrorsDoNotPileUpInTheQueue() async {
        let store = IdempotencyStore(configuration: .init(maximumEntries: 10))
        let runs = Runs()
        _ = await store.run(key: "live", fingerprint: "f", runs.work("live"))
        for index in 0..<5_000 {
            _ = await store.run(key: "e\(index)", fingerprint: "f", runs.work("e\(index)", status: 500))
        }
        #expect(await store.count == 1)
        #expect(await store.queueLength <= 2 * 1024 + 1)
    }
}
