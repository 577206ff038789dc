@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation
import Testing

@_spi(Engine) @testable import DiarySDKFileStore

@Suite("File store compaction pacing")
struct CompactionPacingTests {
    private typealias Pacing = FileDiaryStore.SnapshotPacing
    private typealias Activity = FileDiaryStore.WriterActivity

    /// 100 s after boot, in nanoseconds: far enough from zero for every "so long ago" below.
    private static let now: UInt64 = 100_000_000_000
    private static let millisecond: UInt64 = 1_000_000

    private let pacing = Pacing(startLength: 1_000, budget: 10_000, start: now - 50 * millisecond)
    /// A write ended a tenth of a millisecond ago: writes are landing back to back.
    private let busy = Activity(startedAt: now - 400_000, endedAt: now - 100_000)

    private func holdsBack(
        length: Int, done: Int, writers: Activity, isAwaited: Bool = false, now: UInt64 = now, pacing: Pacing? = nil
    ) -> Bool {
        (pacing ?? self.pacing).holdsBack(
            journalLength: length, done: done, of: 10, writers: writers, isAwaited: isAwaited, now: now)
    }

    @Test func aPieceAheadOfTheScheduleWaitsWhileWritesLandBackToBack() {
        // Half the rows written, the journal grown by a tenth of the budget: ahead of the schedule.
        #expect(holdsBack(length: 2_000, done: 5, writers: busy))
        // A write that began 5 ms ago and has not ended (a slow flush) is not a pause.
        #expect(holdsBack(length: 2_000, done: 5, writers: Activity(startedAt: Self.now - 5 * Self.millisecond, endedAt: 0)))
    }

    @Test func aPieceGoesWhenItIsDueByTheJournalsGrowth() {
        // The journal has grown by half the budget: half the rows are due.
        #expect(!holdsBack(length: 6_000, done: 5, writers: busy))
        #expect(holdsBack(length: 5_999, done: 5, writers: busy))
        // Every row written: the flush at the end waits until the whole budget is used, or a pause.
        #expect(holdsBack(length: 10_999, done: 10, writers: busy))
        #expect(!holdsBack(length: 11_000, done: 10, writers: busy))
        // The first piece never waits.
        #expect(!holdsBack(length: 1_000, done: 0, writers: busy))
    }

    @Test func aPieceGoesAsSoonAsTheWritersPause() {
        let paused = Activity(startedAt: Self.now - 6 * Self.millisecond, endedAt: Self.now - 5 * Self.millisecond)
        #expect(!holdsBack(length: 1_000, done: 9, writers: paused))
        let notYet = Activity(startedAt: Self.now - 6 * Self.millisecond, endedAt: Self.now - 4 * Self.millisecond)
        #expect(holdsBack(length: 1_000, done: 9, writers: notYet))
        // A write that began more than a second ago and never ended (it failed) does not hold the compaction.
        let failed = Activity(startedAt: Self.now - 1_001 * Self.millisecond, endedAt: Self.now - 2_000 * Self.millisecond)
        #expect(!holdsBack(length: 1_000, done: 9, writers: failed))
        // No write since the store opened.
        #expect(!holdsBack(length: 1_000, done: 9, writers: Activity()))
    }

    @Test func theSnapshotIsBehindItsScheduleOnceTheJournalHasOutgrownItByAnEighthOfTheBudget() {
        // Half the rows written: due once the journal has grown by half the budget (5,000), behind from 6,250 on.
        #expect(!pacing.isBehind(journalLength: 6_000, done: 5, of: 10))
        #expect(!pacing.isBehind(journalLength: 7_249, done: 5, of: 10))
        #expect(pacing.isBehind(journalLength: 7_250, done: 5, of: 10))
        // Nothing written yet: behind once the journal has grown by an eighth of the budget.
        #expect(!pacing.isBehind(journalLength: 2_249, done: 0, of: 10))
        #expect(pacing.isBehind(journalLength: 2_250, done: 0, of: 10))
        // Every row written: never behind within the budget.
        #expect(!pacing.isBehind(journalLength: 11_000, done: 10, of: 10))
    }

    @Test func aCompactionSomeoneWaitsForOrThatHasPacedItselfLongEnoughGoesAtFullSpeed() {
        #expect(!holdsBack(length: 1_000, done: 9, writers: busy, isAwaited: true))
        let old = Pacing(startLength: 1_000, budget: 10_000, start: Self.now - 10_000 * Self.millisecond)
        #expect(!holdsBack(length: 1_000, done: 9, writers: busy, pacing: old))
        let recent = Pacing(startLength: 1_000, budget: 10_000, start: Self.now - 9_999 * Self.millisecond)
        #expect(holdsBack(length: 1_000, done: 9, writers: busy, pacing: recent))
    }

    /// Under writes landing back to back, compactions still end within their schedule (several finish during 400
    /// writes), and every write is there after a reopen.
    @Test func compactionsPacedBehindBackToBackWritesStillFinishAndLoseNothing() async throws {
        let directory = TestDirectory("pacing")
        defer { directory.remove() }
        // About 25 writes per threshold: a compaction starts every few dozen writes.
        let backend = try directory.open(minimumCompactionBytes: 16 * 1024)
        let (_, sdk) = try await backend.signUp("alice")
        let body = String(repeating: "a day worth keeping ", count: 30)
        for index in 0..<400 { _ = try await sdk.diaries.write(DiaryDraft(body: "\(index) \(body)")) }
        try await backend.store.waitForCompaction()
        let snapshot = try #require(try directory.names().first { $0.hasPrefix("snapshot-") && $0.hasSuffix(".json") })
        let generation = try #require(Int(snapshot.dropFirst("snapshot-".count).dropLast(".json".count)))
        #expect(generation >= 5, "compactions that finished: \(generation - 1)")
        let before = backend.allRecords
        try await backend.close()
        let reopened = try directory.open()
        #expect(reopened.allRecords == before)
        #expect(reopened.allRecords.filter { if case .diary = $0 { true } else { false } }.count == 400)
        try await reopened.close()
    }

    /// What pacing reads says the compaction is awaited while someone waits for the compaction queue or once the
    /// store is closing, and follows the journal's committed end.
    @Test func pacingSeesWaitersClosingAndTheJournalsGrowth() async throws {
        let directory = TestDirectory("pacing-inputs")
        defer { directory.remove() }
        let backend = try directory.open()
        let store = backend.store
        #expect(!store.pacingInputs().isAwaited)
        let before = store.pacingInputs().journalLength
        let (_, sdk) = try await backend.signUp("alice")
        _ = try await sdk.diaries.write(DiaryDraft(body: "one more record"))
        #expect(store.pacingInputs().journalLength > before)
        #expect(store.pacingInputs().writers.lastFlushStartedAt > 0)
        store.state.withLock { $0.compactionWaiters += 1 }
        #expect(store.pacingInputs().isAwaited)
        store.state.withLock { $0.compactionWaiters -= 1 }
        #expect(!store.pacingInputs().isAwaited)
        try await backend.close()
        #expect(store.pacingInputs().isAwaited)
    }

    /// ``FileDiaryStore/waitForCompaction()`` counts itself as a waiter from before its job is queued until it has
    /// run, so that whatever compaction runs ahead of it meanwhile goes at full speed.
    @Test func waitingForTheCompactionCountsAsAWaiterUntilTheQueueReachesIt() async throws {
        let directory = TestDirectory("pacing-waiters")
        defer { directory.remove() }
        let backend = try directory.open()
        let store = backend.store
        let release = DispatchSemaphore(value: 0)
        store.compactionQueue.async { release.wait() }  // Stands for a compaction in progress.
        let waiter = Task { try await store.waitForCompaction() }
        while store.state.withLock({ $0.compactionWaiters }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(store.state.withLock { $0.compactionWaiters } == 1)
        release.signal()
        try await waiter.value
        #expect(store.state.withLock { $0.compactionWaiters } == 0)
        try await backend.close()
    }
}
