@_spi(Engine) @_spi(Storage) @testable import DiarySDK
import DiarySDKConformance
@testable import DiarySDKFileStore
import Foundation
import Testing

/// ``IndexingThread``: the file store's writes file their changes in the indices on it while the journal flushes.
@Suite("Indexing thread")
struct IndexingThreadTests {
    /// Entries and posts of a few authors, some of them replacing earlier ones (same ids).
    private struct Rows {
        var random: SeededRandomGenerator
        let authors = (0..<3).map { _ in User.ID(UUID()) }
        let entryIDs = (0..<40).map { _ in Diary.ID(UUID()) }
        let postIDs = (0..<40).map { _ in Post.ID(UUID()) }

        init(seed: UInt64) { random = SeededRandomGenerator(seed: seed) }

        mutating func int(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

        mutating func record() -> StoreRecord {
            let created = Date(timeIntervalSince1970: Double(1_700_000_000 + int(500) * 3_600))
            let day = LocalDate(year: 2026, month: 1 + int(3), day: 1 + int(28))!
            let author = authors[int(authors.count)]
            let tags = int(2) == 0 ? ["til"] : ["swift", "til"]
            if int(2) == 0 {
                return .diary(Diary(
                    id: entryIDs[int(entryIDs.count)], authorID: author, day: day, title: "", body: "entry \(int(1_000))",
                    tags: tags, createdAt: created, updatedAt: created))
            }
            return .post(PostRecord(
                id: postIDs[int(postIDs.count)], authorID: author, isAnonymous: int(4) == 0, title: "post \(int(100))",
                body: "words \(int(1_000))", tags: tags, images: [], source: .original, day: day, createdAt: created,
                updatedAt: created))
        }
    }

    /// A transaction's outcome with its changes unapplied: `count` random rows put on top of `base`.
    private func outcome(on base: LocalDatabase, _ records: [StoreRecord]) async throws -> LocalTransaction.Outcome {
        let transaction = LocalTransaction(database: base)
        for record in records { try await transaction.put(record) }
        return transaction.finish()
    }

    @Test func itAppliesWhatTheWriterHandsItAsTheWriterWould() async throws {
        var random = Rows(seed: 61)
        var base = LocalDatabase()
        base.put(contentsOf: (0..<300).map { _ in random.record() })
        let thread = IndexingThread()
        defer { thread.stop() }
        for round in 0..<20 {
            let records = (0..<(1 + round % 4)).map { _ in random.record() }
            var inline = try await outcome(on: base, records)
            var handed: LocalTransaction.Outcome? = try await outcome(on: base, records)
            #expect(!inline.isApplied)
            #expect(thread.start(&handed))
            #expect(handed == nil, "the thread owns the outcome")
            inline.applyRest()
            let applied = thread.finish()
            #expect(applied.isApplied)
            #expect(applied.mutations == inline.mutations)
            #expect(applied.database.allRecords == inline.database.allRecords)
            for kind in RecordKind.allCases {
                #expect(applied.database.rowCount(of: kind) == inline.database.rowCount(of: kind))
            }
            var retired: LocalDatabase? = base
            base = applied.database
            thread.retire(&retired)
        }
        // Retired values wait for the thread's next job; a write that hands none over takes them back to free.
        #expect(thread.takeRetired().count == 1)
        #expect(thread.takeRetired().isEmpty)
        // The indices too, not only the tables: the feed lists every post.
        let snapshot = LocalSnapshot(base)
        let feed = try await snapshot.page(
            StorageSchema.feed, Everything(), descending: true, from: .start, limit: 1_000, where: .none)
        #expect(feed.count == base.rowCount(of: .post))
    }

    @Test func onceStoppedItTakesNoMoreWorkAndTheWriterAppliesItself() async throws {
        var random = Rows(seed: 62)
        let thread = IndexingThread()
        var first: LocalTransaction.Outcome? = try await outcome(on: LocalDatabase(), [random.record()])
        #expect(thread.start(&first))
        _ = thread.finish()
        thread.stop()
        var second: LocalTransaction.Outcome? = try await outcome(on: LocalDatabase(), [random.record()])
        #expect(!thread.start(&second))
        #expect(second != nil, "a refused outcome stays with the writer")
        var retired: LocalDatabase? = LocalDatabase()
        thread.retire(&retired)
        #expect(thread.takeRetired().isEmpty, "after a stop, a retired value is freed by the writer at once")
    }

    @Test func aStoreWritesThroughItAndReadersSeeEveryIndexAtOnce() async throws {
        // Each write returns only once its changes are in every index: a read right after finds them there.
        let directory = TestDirectory()
        defer { directory.remove() }
        let backend = try FileStoreBackend(configuration: .init(directory: directory.url))
        // Every write hands its changes over, however fast this machine's flushes.
        backend.store.state.withLock { $0.indexingFlushThreshold = 0 }
        let (account, repositories) = try await backend.signUp("indexing")
        let diaries = repositories.diaries
        let day = LocalDate(year: 2026, month: 11, day: 28)!
        let month = YearMonth(year: 2026, month: 11)!
        for number in 0..<40 {
            let written = try await diaries.write(
                DiaryDraft(day: day, title: "t\(number)", body: "entry \(number)", tags: ["tag\(number % 3)"]))
            let calendar = try await diaries.calendar(month, of: nil)
            #expect(calendar.days.first { $0.date == day }?.entryCount == number + 1)
            let tagged = try await diaries.entries(DiaryQuery(tag: "tag\(number % 3)"), page: .first(size: 100))
            #expect(tagged.items.contains { $0.id == written.id })
        }
        #expect(backend.store.indexing.hasRun)
        try await backend.close()
        // And the journal replays to the same.
        let reopened = try FileStoreBackend(configuration: .init(directory: directory.url))
        let calendar = try await reopened.repositories(signedInAs: account.id).diaries.calendar(month, of: nil)
        #expect(calendar.days.first { $0.date == day }?.entryCount == 40)
        try await reopened.close()
    }

    @Test func writesHandTheirChangesOverOnlyOnceTheFlushesAreSlowEnoughToHideIt() async throws {
        let directory = TestDirectory("indexing-adaptive")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(io: io)
        let (_, sdk) = try await backend.signUp("alice")
        // Flushes made fast for the store (its threshold above any flush here): every write files its own changes.
        backend.store.state.withLock { $0.indexingFlushThreshold = .max }
        for number in 0..<10 { _ = try await sdk.diaries.write(DiaryDraft(body: "fast \(number)")) }
        #expect(!backend.store.indexing.hasRun)
        // Nor while a compaction runs, however slow the flushes (the flag set by hand: no compaction starts
        // meanwhile, since one is marked running).
        backend.store.state.withLock {
            $0.indexingFlushThreshold = 0
            $0.isCompacting = true
        }
        for number in 0..<5 { _ = try await sdk.diaries.write(DiaryDraft(body: "compacting \(number)")) }
        #expect(!backend.store.indexing.hasRun)
        backend.store.state.withLock { $0.isCompacting = false }
        // A device whose flushes take 2 ms: after a few writes the average crosses the default threshold.
        backend.store.state.withLock { $0.indexingFlushThreshold = FileDiaryStore.defaultIndexingFlushThreshold }
        io.slowSyncs(on: "journal-", by: 2_000)
        for number in 0..<10 { _ = try await sdk.diaries.write(DiaryDraft(body: "slow \(number)")) }
        #expect(backend.store.indexing.hasRun)
        #expect(backend.store.state.withLock { $0.flushDuration } >= FileDiaryStore.defaultIndexingFlushThreshold)
        let entries = try await sdk.diaries.entries(DiaryQuery(), page: .first(size: 50)).items
        #expect(entries.count == 25)
        try await backend.close()
    }

    @Test func aFlushThatFailsWhileTheThreadFilesTheChangesPublishesNothing() async throws {
        let directory = TestDirectory("indexing-failure")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(io: io)
        backend.store.state.withLock { $0.indexingFlushThreshold = 0 }
        let (_, sdk) = try await backend.signUp("alice")
        _ = try await sdk.diaries.write(DiaryDraft(body: "kept"))
        let before = backend.allRecords
        io.fail(.sync, on: "journal-", with: EIO, times: 1)
        await #expect(throws: DiaryError.self) { _ = try await sdk.diaries.write(DiaryDraft(body: "lost")) }
        #expect(backend.allRecords == before, "the thread's work is dropped with the write")
        // The journal was restored, so the store writes on, through the thread again.
        let after = try await sdk.diaries.write(DiaryDraft(body: "after"))
        #expect(backend.allRecords.contains(.diary(after)))
        #expect(try await sdk.diaries.entries(DiaryQuery(), page: .first()).items.map(\.body).sorted() == ["after", "kept"])
        try await backend.close()
    }
}
