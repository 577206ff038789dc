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

    @Test func aCompactionSomeoneWaitsForOrThatHasPacedItselfLongEnoughGoesAtFullSpeed() {
        #expect(!holdsBack(length: 1_000, done: 9, writers: busy, isAwaited: true))
        let old = Pacing(startLength: 1_000, budget: 10_000, start: Self.now - 10_000 * Self.millisecond)
        #expect(!holdsBack(length: 1_000, done: 9, writers: busy, pacing: old))
        let recent = Pacing(startLength: 1_000, budget: 10_000, start: Self.now - 9_999 * Self.millisecond)
        #expect(holdsBack(length: 1_000, done: 9, writers: busy, pacing: recent))
    }

    /// Under writes landing back to back, each compaction still ends within its schedule: the store never holds a
    /// third journal, several compactions finish, and every write is there after a reopen.
    @Test func compactionsPacedBehindBackToBackWritesStillFinishAndLoseNothing() async throws {
        let directory = TestDirectory("pacing")
        defer { directory.remove() }
        // About 25 writes per threshold: a compaction starts every few dozen writes.
        let backend = try directory.open(minimumCompactionBytes: 16 * 1024)
        let (_, sdk) = try await backend.signUp("alice")
        let body = String(repeating: "a day worth keeping ", count: 30)
        var mostJournals = 0
        for index in 0..<400 {
            _ = try await sdk.diaries.write(DiaryDraft(body: "\(index) \(body)"))
            mostJournals = max(mostJournals, try directory.names().filter { $0.hasPrefix("journal-") }.count)
        }
        try await backend.store.waitForCompaction()
        #expect(mostJournals <= 2)
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

    /// Someone waiting for a compaction (closing the store, compacting on demand) does not wait for its schedule:
    /// with writes still landing back to back, the wait ends long before the journal has grown by the schedule's
    /// budget.
    @Test func waitingForACompactionEndsItsPacing() async throws {
        // On a loaded machine the writers may pause long enough for the compaction to finish before it is awaited,
        // which leaves nothing to check: then the scenario runs again, on a new store.
        for attempt in 1...5 {
            let directory = TestDirectory("pacing-awaited")
            defer { directory.remove() }
            let backend = try directory.open(minimumCompactionBytes: 1 << 20)
            let (user, sdk) = try await backend.signUp("alice")
            let created = Date(timeIntervalSince1970: 1_767_225_600)
            let body = String(repeating: "imported ", count: 80)
            // One import of about 1.4 MB starts a compaction whose schedule spans 512 KiB of later writes.
            let entries = (0..<2_000).map { index in
                Diary(
                    id: Diary.ID(UUID()), authorID: user.id,
                    day: LocalDate(year: 2025, month: 1, day: 1 + index % 28)!, title: "", body: "\(index) \(body)",
                    createdAt: created, updatedAt: created)
            }
            try await backend.importEntries(entries)
            #expect(backend.store.state.withLock { $0.isCompacting })
            let written = Locked(0)
            let stop = Locked(false)
            // Two writers, so that one is always queued behind the other: no pause between writes.
            let writers = (0..<2).map { _ in
                Task {
                    while !stop.withLock({ $0 }) {
                        _ = try await sdk.diaries.write(DiaryDraft(body: "while compacting"))
                        written.withLock { $0 += 1 }
                    }
                }
            }
            while written.withLock({ $0 }) < 20 { try await Task.sleep(for: .milliseconds(1)) }
            let isHeldBack = backend.store.state.withLock { $0.isCompacting }
            if isHeldBack { try await backend.store.waitForCompaction() }
            let writtenMeanwhile = written.withLock { $0 }
            stop.withLock { $0 = true }
            for writer in writers { try await writer.value }
            try await backend.close()
            guard isHeldBack else {
                if attempt == 5 { Issue.record("the compaction never held back behind the writes in 5 attempts") }
                continue
            }
            // Each write adds about 300 bytes to the journal: the schedule alone would have held the compaction
            // for well over a thousand of them.
            #expect(writtenMeanwhile < 1_000)
            return
        }
    }
}
