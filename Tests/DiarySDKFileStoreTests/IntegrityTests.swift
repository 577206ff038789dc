@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A closed store whose entries carry an attachment each: its directory, rows and attachment files.
private func makeStoreWithAttachments(
    _ label: String, entries: Int, compact: Bool = false
) async throws -> (TestDirectory, [StoreRecord]) {
    let directory = TestDirectory(label)
    let backend = try directory.open()
    let (_, sdk) = try await backend.signUp("alice")
    for index in 0..<entries {
        if compact, index == entries / 2 { try await backend.store.compactNow() }
        let image = try await sdk.attachments.upload(AttachmentUpload(data: tinyPNG, contentType: "image/png"))
        _ = try await sdk.diaries.write(DiaryDraft(body: "entry \(index)", images: [image]))
    }
    let records = backend.allRecords
    try await backend.close()
    return (directory, records)
}

private func diaryBodies(_ records: [StoreRecord]) -> [String] {
    records.compactMap { if case .diary(let diary) = $0 { diary.body } else { nil } }.sorted()
}

/// A closed store with two journals: "in journal 1" was written, a compaction failed to write its snapshot (a full
/// disk), and "in journal 2" went to the journal that compaction started. Returns the signed-up user's id.
func makeClosedStoreWithAnUnfinishedCompaction(_ directory: TestDirectory) async throws -> User.ID {
    let io = FailingFileIO()
    let backend = try directory.open(io: io)
    let (user, sdk) = try await backend.signUp("alice")
    _ = try await sdk.diaries.write(DiaryDraft(body: "in journal 1"))
    io.fail(.write, on: "snapshot-", with: ENOSPC)
    await #expect(throws: DiaryError.self) { try await backend.store.compactNow() }
    io.heal()
    _ = try await sdk.diaries.write(DiaryDraft(body: "in journal 2"))
    try await backend.close()
    #expect(try directory.names().filter { $0.hasPrefix("journal-") } == ["journal-1.log", "journal-2.log"])
    return user.id
}

/// The byte offsets of a journal's records.
private func recordOffsets(_ url: URL) throws -> [Int] {
    try JournalFormat.scan(Data(contentsOf: url), file: url.path, allowTornTail: false).offsets
}

@Suite("File store integrity: missing files and lost records")
struct IntegrityTests {
    /// A closed store whose only journal was deleted: the snapshot expects it, so opening fails naming it, and
    /// nothing is created, cut or swept (the attachment files of the rows in that journal stay).
    @Test(arguments: [false, true])
    func aMissingJournalIsATypedErrorAndNothingIsSwept(compacted: Bool) async throws {
        let (directory, _) = try await makeStoreWithAttachments("missing-journal", entries: 6, compact: compacted)
        defer { directory.remove() }
        let journal = try #require(try directory.names().first { $0.hasPrefix("journal-") })
        try FileManager.default.removeItem(at: directory.file(journal))
        let before = try directory.contents()

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains(journal), "\(error.message)")
        #expect(try directory.contents() == before)
    }

    /// A compaction whose snapshot never got written leaves two journals; losing the newer one must not go unnoticed
    /// either: the clean close recorded which journal and sequence the store ended at.
    @Test func aMissingNewerJournalIsATypedError() async throws {
        let directory = TestDirectory("missing-newer")
        defer { directory.remove() }
        _ = try await makeClosedStoreWithAnUnfinishedCompaction(directory)
        try FileManager.default.removeItem(at: directory.file("journal-2.log"))
        let before = try directory.contents()

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("journal-2.log"), "\(error.message)")
        #expect(try directory.contents() == before)
    }

    /// Records cut from the end of an older journal are not a torn tail: the next journal says where the older one
    /// ended, so the gap is corruption.
    @Test func recordsMissingFromTheEndOfAnOlderJournalAreATypedError() async throws {
        let directory = TestDirectory("older-cut")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(io: io)
        let (_, sdk) = try await backend.signUp("alice")
        for index in 0..<3 { _ = try await sdk.diaries.write(DiaryDraft(body: "in journal 1, \(index)")) }
        io.fail(.write, on: "snapshot-", with: ENOSPC)
        await #expect(throws: DiaryError.self) { try await backend.store.compactNow() }
        io.heal()
        try await backend.close()
        let journal = directory.file("journal-1.log")
        let offsets = try recordOffsets(journal)
        try Data(contentsOf: journal).prefix(offsets[offsets.count - 1]).write(to: journal)
        let before = try directory.contents()

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("journal-1.log"), "\(error.message)")
        #expect(try directory.contents() == before)
    }

    /// A record missing from the middle of a journal (each record carries its sequence) is corruption.
    @Test func aRecordMissingFromTheMiddleOfAJournalIsATypedError() async throws {
        let (directory, _) = try await makeClosedStore("gap", entries: 4)
        defer { directory.remove() }
        let journal = directory.file("journal-1.log")
        let offsets = try recordOffsets(journal)
        let data = try Data(contentsOf: journal)
        try (data.prefix(offsets[2]) + data[offsets[3]...]).write(to: journal)

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("journal-1.log"))
        #expect(error.message.contains("sequence"))
    }

    /// A journal cut exactly at a record boundary after a clean close: no bytes are torn, but the close recorded
    /// the last durable sequence, so the loss of acknowledged records is reported (and no orphan sweep runs).
    @Test func acknowledgedRecordsCutAtARecordBoundaryAreReported() async throws {
        let (directory, records) = try await makeStoreWithAttachments("boundary", entries: 5)
        defer { directory.remove() }
        let journal = directory.file("journal-1.log")
        let offsets = try recordOffsets(journal)
        try Data(contentsOf: journal).prefix(offsets[offsets.count - 2]).write(to: journal)
        let attachments = try FileManager.default.contentsOfDirectory(atPath: directory.file("attachments").path)

        let backend = try directory.open()
        #expect(backend.openReport.droppedRecords == 2)
        #expect(backend.openReport.droppedAcknowledgedRecords == 2)
        #expect(!backend.openReport.isClean)
        #expect(backend.openReport.removedOrphanAttachments == 0)
        #expect(backend.openReport.isOrphanSweepSuspended)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("attachments").path) == attachments)
        #expect(diaryBodies(backend.allRecords).count == diaryBodies(records).count - 1)
        try await backend.close()

        // Reported once: the loss is now the store's known state. But the files of the lost rows are kept, and every
        // open says the orphan sweep is suspended, until the app acknowledges the loss.
        for _ in 0..<2 {
            let again = try directory.open()
            #expect(again.openReport.isClean)
            #expect(again.openReport.droppedRecords == 0)
            #expect(again.openReport.isOrphanSweepSuspended)
            #expect(again.openReport.removedOrphanAttachments == 0)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.file("attachments").path) == attachments)
            try await again.close()
        }
        let acknowledging = try directory.open()
        try await acknowledging.acknowledgeDataLoss()
        #expect(acknowledging.openReport.isOrphanSweepSuspended, "the report says what this open found")
        try await acknowledging.close()

        let swept = try directory.open()
        #expect(!swept.openReport.isOrphanSweepSuspended)
        #expect(swept.openReport.removedOrphanAttachments == 1)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.file("attachments").path).count
                == attachments.count - 1)
        try await swept.close()
    }

    /// A journal cut at a random point inside a record, several records from the end: the torn bytes are cut off
    /// and every acknowledged record lost with them is counted.
    @Test func aJournalCutInsideARecordCountsEveryLostAcknowledgedRecord() async throws {
        let (directory, _) = try await makeClosedStore("cut", entries: 8)
        defer { directory.remove() }
        let journal = directory.file("journal-1.log")
        let offsets = try recordOffsets(journal)
        try Data(contentsOf: journal).prefix(offsets[offsets.count - 4] + 11).write(to: journal)

        let backend = try directory.open()
        #expect(backend.openReport.recoveredTornTail)
        #expect(backend.openReport.droppedRecords == 4)
        #expect(backend.openReport.droppedAcknowledgedRecords == 4)
        #expect(try Data(contentsOf: journal).count == offsets[offsets.count - 4])
        try await backend.close()
    }

    /// Without a clean close (the process died), a torn final record is the one append the crash interrupted: one
    /// record dropped, none acknowledged.
    @Test func aTornFinalRecordAfterACrashIsOneUnacknowledgedRecord() async throws {
        let directory = TestDirectory("crashed")
        defer { directory.remove() }
        do {
            let backend = try directory.open()
            let (_, sdk) = try await backend.signUp("alice")
            for index in 0..<3 { _ = try await sdk.diaries.write(DiaryDraft(body: "entry \(index)")) }
            // No close: the backend is released as a killed process would leave it.
        }
        let journal = directory.file("journal-1.log")
        let torn = JournalFormat.frame(Data(#"{"changes":[],"sequence":99}"#.utf8))
        try tearAppend(of: torn, keeping: torn.count / 2, to: journal, insideReservedSpace: true)

        let backend = try directory.open()
        #expect(backend.openReport.recoveredTornTail)
        #expect(backend.openReport.droppedRecords == 1)
        #expect(backend.openReport.droppedAcknowledgedRecords == 0)
        #expect(backend.openReport.isClean)
        #expect(diaryBodies(backend.allRecords) == ["entry 0", "entry 1", "entry 2"])
        try await backend.close()
    }
}
