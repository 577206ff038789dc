@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

/// Journals written since schema 5 end in space reserved for the records to come (docs/FileStoreFormat.md), so that an
/// append overwrites zeros instead of growing the file.
@Suite("File store journals' reserved space")
struct ReservedSpaceTests {
    /// Reopens a closed store and checks that it holds `records` and opened clean.
    private func expectReopens(_ directory: TestDirectory, holding records: [StoreRecord]) async throws {
        let reopened = try directory.open()
        #expect(reopened.allRecords == records)
        #expect(reopened.openReport.isClean)
        #expect(!reopened.openReport.recoveredTornTail)
        try await reopened.close()
    }

    /// Says schema 4 in `store.json`, as the release before reserved space wrote it.
    private func markSchema4(_ directory: TestDirectory) throws {
        var header = try #require(try FileStoreSchema.readHeader(in: directory.url.path, io: POSIXFileIO()))
        header.schemaVersion = 4
        try FileStoreSchema.writeHeader(header, in: directory.url.path, io: POSIXFileIO())
    }

    /// The size of a file, and the end of the records in it.
    private func journal(_ directory: TestDirectory, _ name: String) throws -> (size: Int, records: Int) {
        let url = directory.file(name)
        return (try Data(contentsOf: url).count, try journalRecords(url).count)
    }

    @Test func writesLandInReservedSpaceWithoutGrowingTheJournal() async throws {
        let directory = TestDirectory("reserved")
        defer { directory.remove() }
        let backend = try directory.open()
        let (_, sdk) = try await backend.signUp("alice")
        let first = try journal(directory, "journal-1.log")
        #expect(first.size >= first.records + JournalFormat.minimumPreallocation)
        var bodies: [String] = []
        for index in 0..<20 {
            bodies.append("entry \(index)")
            _ = try await sdk.diaries.write(DiaryDraft(body: bodies[index]))
            let now = try journal(directory, "journal-1.log")
            #expect(now.size == first.size, "a write inside the reservation grew the file")
            #expect(now.records > first.records)
        }
        let records = backend.allRecords
        try await backend.close()

        let reopened = try directory.open()
        #expect(reopened.openReport.isClean)
        #expect(!reopened.openReport.recoveredTornTail)
        #expect(reopened.allRecords == records)
        _ = try await reopened.repositories(signedInAs: reopened.allUserIDs[0]).diaries.write(DiaryDraft(body: "after"))
        #expect(try journal(directory, "journal-1.log").size == first.size)
        try await reopened.close()
    }

    @Test func aJournalWhoseReservationIsUsedUpGrowsByTheNextStepAndKeepsEveryRecord() async throws {
        let directory = TestDirectory("reserved-grow")
        defer { directory.remove() }
        let backend = try directory.open()
        let (_, sdk) = try await backend.signUp("alice")
        let start = try journal(directory, "journal-1.log")
        let body = String(repeating: "long enough to use up the reservation quickly ", count: 60)
        var sizes: Set<Int> = [start.size]
        while sizes.count < 3 {
            _ = try await sdk.diaries.write(DiaryDraft(body: body))
            let now = try journal(directory, "journal-1.log")
            #expect(now.size >= now.records)
            #expect(now.size % 4_096 == 0 || now.size == start.size)
            sizes.insert(now.size)
        }
        let grown = try journal(directory, "journal-1.log")
        #expect(grown.size - grown.records <= JournalFormat.preallocation(after: grown.records) + 4_096)
        let records = backend.allRecords
        try await backend.close()
        try await expectReopens(directory, holding: records)
    }

    /// A compaction starts the next journal with space reserved, as large as the records of the journal it follows
    /// (within the bounds), and the store written that way reopens with every row.
    @Test func aNewJournalStartsWithReservedSpace() async throws {
        let directory = TestDirectory("reserved-compaction")
        defer { directory.remove() }
        let backend = try directory.open()
        let (_, sdk) = try await backend.signUp("alice")
        for index in 0..<5 { _ = try await sdk.diaries.write(DiaryDraft(body: "before \(index)")) }
        let before = try journal(directory, "journal-1.log")
        try await backend.store.compactNow()
        let next = try journal(directory, "journal-2.log")
        #expect(next.size == JournalFormat.reservedEnd(after: next.records, step: JournalFormat.preallocation(after: before.records)))
        #expect(next.size % 4_096 == 0)
        _ = try await sdk.diaries.write(DiaryDraft(body: "after"))
        #expect(try journal(directory, "journal-2.log").size == next.size)
        let records = backend.allRecords
        try await backend.close()
        try await expectReopens(directory, holding: records)
    }

    /// A store from before schema 5, whose journal ends with its last record, opens, is marked schema 5 and reserves
    /// space with its next write.
    @Test func aJournalWithoutReservedSpaceGetsItWithTheNextWrite() async throws {
        let directory = TestDirectory("reserved-old")
        defer { directory.remove() }
        let backend = try directory.open()
        let (user, sdk) = try await backend.signUp("alice")
        _ = try await sdk.diaries.write(DiaryDraft(body: "old"))
        try await backend.close()
        let url = directory.file("journal-1.log")
        try journalRecords(url).write(to: url)
        try markSchema4(directory)

        let reopened = try directory.open()
        #expect(reopened.openReport.foundSchemaVersion == 4)
        #expect(reopened.openReport.migrations == [.init(from: 4, to: 5)])
        #expect(reopened.openReport.isClean)
        let trimmed = try journal(directory, "journal-1.log")
        #expect(trimmed.size == trimmed.records)
        _ = try await reopened.repositories(signedInAs: user.id).diaries.write(DiaryDraft(body: "new"))
        let grown = try journal(directory, "journal-1.log")
        #expect(grown.size > grown.records)
        let records = reopened.allRecords
        try await reopened.close()
        let again = try directory.open()
        #expect(again.allRecords == records)
        #expect(again.openReport.migrations.isEmpty)
        try await again.close()
    }

    /// A schema 4 store left with two journals (a compaction whose snapshot was never written) keeps appending to
    /// the newer one when it is opened as schema 5, finishes that compaction, and loses nothing written meanwhile.
    @Test func aSchema4StoreWithAnUnfinishedCompactionKeepsItsJournalsAndEveryWrite() async throws {
        let directory = TestDirectory("reserved-old-compaction")
        defer { directory.remove() }
        let user = try await makeClosedStoreWithAnUnfinishedCompaction(directory)
        try markSchema4(directory)

        let reopened = try directory.open()
        #expect(reopened.openReport.migrations == [.init(from: 4, to: 5)])
        #expect(reopened.openReport.isClean)
        let repositories = reopened.repositories(signedInAs: user)
        // The first write retries the unfinished compaction in the background; the writes must be in the journal
        // that outlives it.
        for index in 0..<3 { _ = try await repositories.diaries.write(DiaryDraft(body: "after the upgrade \(index)")) }
        try await reopened.store.waitForCompaction()
        #expect(try directory.names().filter { $0.hasPrefix("journal-") } == ["journal-2.log"])
        let records = reopened.allRecords
        try await reopened.close()

        let again = try directory.open()
        #expect(again.allRecords == records)
        #expect(again.openReport.isClean)
        let bodies = again.allRecords.compactMap { if case .diary(let diary) = $0 { diary.body } else { nil } }
        #expect(bodies.sorted() == [
            "after the upgrade 0", "after the upgrade 1", "after the upgrade 2", "in journal 1", "in journal 2",
        ])
        try await again.close()
    }
}
