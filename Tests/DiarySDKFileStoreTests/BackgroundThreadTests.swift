@_spi(Engine) @_spi(Storage) import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

@_spi(Engine) @testable import DiarySDKFileStore

/// ``BackgroundThread``: a background compaction's CPU work runs on it at the lowest priority, and nobody waits for it
/// when they must go on.
@Suite("Background thread")
struct BackgroundThreadTests {
    @Test func itRunsJobsAtTheLowestPriorityUnderItsName() {
        let thread = BackgroundThread(name: "DiarySDK.encode")
        defer { thread.stop() }
        let policy = thread.run({ BackgroundThread.currentPolicy }, givingUpWhen: { false })
        #expect(policy != nil)
        #expect(thread.hasLowestPriority == true)
        #expect(thread.startedJobs == 1)
        #if os(Linux)
        #expect(policy == 5, "SCHED_IDLE")
        // The caller's own thread keeps its policy.
        #expect(BackgroundThread.currentPolicy != 5)
        // The name the kernel shows (`ps -L`, `perf`), which keeps at most 15 bytes of it.
        let name = thread.run(
            { (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "" }, givingUpWhen: { false })
        #expect(name == "DiarySDK.encode\n")
        #endif
    }

    @Test func aCallerGivesUpAJobTheThreadDoesNotGetToAndTheJobIsDropped() {
        let thread = BackgroundThread(name: "test.background")
        defer { thread.stop() }
        thread.holdJobs(true)  // As if every core were busy.
        let checks = Locked(0)
        let ran = Locked(false)
        let started = Date()
        let result = thread.run(
            { () -> Bool in
                ran.withLock { $0 = true }
                return true
            }, givingUpWhen: { checks.withLock { $0 += 1; return $0 == 3 } })
        #expect(result == nil)
        #expect(checks.withLock { $0 } == 3, "asked every \(BackgroundThread.checkInterval) s until it gave up")
        #expect(Date().timeIntervalSince(started) < 5)
        // Once the thread may run again, the job given up is not run, and the next one is.
        thread.holdJobs(false)
        #expect(thread.run({ 42 }, givingUpWhen: { false }) == 42)
        #expect(!ran.withLock { $0 })
        #expect(thread.startedJobs == 1)
        #expect(thread.handedJobs == 2)
    }

    @Test func aJobGivenUpWhileItRunsEndsOnItsOwnAndTheNextOneRunsAfterIt() {
        let thread = BackgroundThread(name: "test.background")
        defer { thread.stop() }
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let finished = Locked(false)
        let giveUp = Locked(false)
        let waiter = Thread {
            running.wait()
            giveUp.withLock { $0 = true }
        }
        waiter.start()
        let first = thread.run(
            { () -> Int in
                running.signal()
                release.wait()
                finished.withLock { $0 = true }
                return 1
            }, givingUpWhen: { giveUp.withLock { $0 } })
        #expect(first == nil, "given up while it ran")
        #expect(!finished.withLock { $0 })
        release.signal()
        #expect(thread.run({ 2 }, givingUpWhen: { false }) == 2)
        #expect(finished.withLock { $0 }, "the job given up ran to its end before the next")
    }

    @Test func piecesEncodedOnTheThreadAndPiecesGivenUpAndEncodedAgainMakeTheSameFile() throws {
        // The compaction's own steps, by hand: each piece on a copy of the encoder, on the thread or (every third
        // piece, as if given up while the thread still had it) on a second copy here, adopted when done.
        var random = SeededRandomGenerator(seed: 71)
        let author = User.ID(UUID())
        let records = (0..<400).map { index -> StoreRecord in
            let created = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 3_600)
            return .diary(Diary(
                id: Diary.ID(UUID()), authorID: author, day: LocalDate(year: 2026, month: 1 + index % 12, day: 1)!,
                title: "", body: String(repeating: "word \(random.next() % 1_000) ", count: 20), tags: ["til"],
                createdAt: created, updatedAt: created))
        }
        let whole = try SnapshotFormat.encode(records, generation: 3, sequence: 41)
        let thread = BackgroundThread(name: "test.background")
        defer { thread.stop() }
        var encoder = try SnapshotFormat.Encoder(records: records, generation: 3, sequence: 41)
        var body = Data()
        var pieces = 0
        while true {
            let start = UncheckedBox(encoder)
            let step = { @Sendable () -> UncheckedBox<(SnapshotFormat.Encoder, Data?)> in
                var copy = start.value.detached()
                let piece = try? copy.nextPiece(minimumSize: 1_000)
                return UncheckedBox((copy, piece))
            }
            let onThread = try #require(thread.run(step, givingUpWhen: { false }))
            let done = pieces % 3 == 2 ? step() : onThread
            encoder = done.value.0
            guard let piece = done.value.1 else { break }
            body.append(piece)
            pieces += 1
        }
        #expect(pieces > 10)
        var file = try encoder.headerLine()
        file.append(body)
        #expect(file == whole)
    }

    @Test func onceStoppedItRunsNothing() {
        let thread = BackgroundThread(name: "test.background")
        #expect(thread.run({ 1 }, givingUpWhen: { false }) == 1)
        thread.stop()
        #expect(thread.run({ 2 }, givingUpWhen: { false }) == nil)
        #expect(thread.startedJobs == 1)
    }

    /// Waits, without counting as a waiter (which would make the compaction go on by itself), until no compaction runs.
    private func waitUntilNoCompactionRuns(_ store: FileDiaryStore) async throws {
        let start = Date()
        while store.state.withLock({ $0.isCompacting }) {
            try #require(Date().timeIntervalSince(start) < 60, "the compaction did not end")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Writes entries of about 700 bytes until the write that starts a compaction, and stops there.
    private func writeUntilACompactionStarts(_ store: FileDiaryStore, _ sdk: DiaryRepositories) async throws {
        let body = String(repeating: "a day worth keeping ", count: 30)
        var written = 0
        while !store.state.withLock({ $0.isCompacting }) {
            _ = try await sdk.diaries.write(DiaryDraft(body: "\(written) \(body)"))
            written += 1
            try #require(written < 1_000, "no compaction started")
        }
    }

    /// The snapshot's generation and bytes.
    private func newestSnapshot(_ directory: TestDirectory) throws -> (generation: Int, bytes: Data) {
        let generations = try directory.names().compactMap { name -> Int? in
            guard name.hasPrefix("snapshot-"), name.hasSuffix(".json") else { return nil }
            return Int(name.dropFirst("snapshot-".count).dropLast(".json".count))
        }
        let generation = try #require(generations.max())
        return (generation, try Data(contentsOf: directory.file("snapshot-\(generation).json")))
    }

    @Test(.timeLimit(.minutes(1)))
    func aBackgroundCompactionEncodesItsSnapshotOnTheThreadByteForByte() async throws {
        let directory = TestDirectory("background-compaction")
        defer { directory.remove() }
        let backend = try directory.open(minimumCompactionBytes: 16 * 1024)
        let store = backend.store
        let (_, sdk) = try await backend.signUp("alice")
        try await writeUntilACompactionStarts(store, sdk)
        try await waitUntilNoCompactionRuns(store)
        // Handed over: the rows to sort, then each piece. (Whether the thread got a core in time depends on the
        // machine's load; the snapshot is the same either way.)
        #expect(store.background.handedJobs >= 2)
        let (generation, bytes) = try newestSnapshot(directory)
        let sequence = store.state.withLock { $0.sequence }
        #expect(bytes == (try SnapshotFormat.encode(backend.allRecords, generation: generation, sequence: sequence)))
        let before = backend.allRecords
        try await backend.close()
        let reopened = try directory.open()
        #expect(reopened.allRecords == before)
        try await reopened.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func closingDoesNotWaitForAThreadThatGetsNoCore() async throws {
        let directory = TestDirectory("background-starved")
        defer { directory.remove() }
        let backend = try directory.open(minimumCompactionBytes: 16 * 1024)
        let store = backend.store
        store.background.holdJobs(true)  // A thread that never gets a core: every other thread busy.
        let (_, sdk) = try await backend.signUp("alice")
        let generationBefore = (try? newestSnapshot(directory).generation) ?? 0
        try await writeUntilACompactionStarts(store, sdk)
        // The compaction has handed its first job over, which the thread does not start.
        let start = Date()
        while store.background.handedJobs == 0 {
            try #require(Date().timeIntervalSince(start) < 60, "no job handed over")
            try await Task.sleep(for: .milliseconds(1))
        }
        let before = backend.allRecords
        // Closing waits for the compaction, which gives its work up and does it on its own thread.
        try await backend.close()
        #expect(store.background.startedJobs == 0)
        #expect(try newestSnapshot(directory).generation > generationBefore)
        let reopened = try directory.open()
        #expect(reopened.allRecords == before)
        #expect(reopened.openReport.replayedTransactions == 0, "everything is in the snapshot")
        try await reopened.close()
    }
}
