@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("File store write failures")
struct FailureTests {
    /// A failed journal append or fsync: the write throws `.unavailable` with the system's reason, and neither the
    /// memory nor the files (after a reopen) hold any of it; later writes work again.
    @Test(arguments: [FailingFileIO.Operation.write, .sync])
    func aFailedJournalWriteLeavesTheStoreAsItWas(_ operation: FailingFileIO.Operation) async throws {
        let directory = TestDirectory("enospc")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(io: io)
        let (_, sdk) = try await backend.signUp("alice")
        _ = try await sdk.diaries.write(DiaryDraft(body: "before"))
        let before = backend.allRecords
        let journalBefore = try Data(contentsOf: directory.file("journal-1.log"))

        io.fail(operation, on: "journal-", with: operation == .write ? ENOSPC : EIO, times: 1)
        do {
            _ = try await sdk.diaries.write(DiaryDraft(body: "lost"))
            Issue.record("the write should have failed")
        } catch let error as DiaryError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains(operation == .write ? "No space left" : "Input/output error"))
            #expect(error.message.contains("journal-1.log"))
        }
        #expect(backend.allRecords == before)
        #expect(try Data(contentsOf: directory.file("journal-1.log")) == journalBefore)

        let after = try await sdk.diaries.write(DiaryDraft(body: "after"))
        let expected = backend.allRecords
        try await backend.close()

        let reopened = try directory.open()
        #expect(reopened.allRecords == expected)
        let bodies = reopened.allRecords.compactMap { if case .diary(let diary) = $0 { diary.body } else { nil } }
        #expect(bodies.sorted() == ["after", "before"])
        #expect(reopened.allRecords.contains(.diary(after)))
        try await reopened.close()
    }

    @Test func aCompactionThatCannotWriteItsSnapshotFailsAndLosesNothing() async throws {
        let directory = TestDirectory("compaction-full")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(io: io)
        let (_, sdk) = try await backend.signUp("alice")
        _ = try await sdk.diaries.write(DiaryDraft(body: "kept"))
        let before = backend.allRecords
        io.fail(.write, on: "snapshot-", with: ENOSPC)
        let error = await #expect(throws: DiaryError.self) { try await backend.store.compactNow() }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("snapshot") == true, "the error names the file")
        io.heal()
        _ = try await sdk.diaries.write(DiaryDraft(body: "after the failed compaction"))
        let after = backend.allRecords
        try await backend.close()
        let reopened = try directory.open()
        #expect(reopened.allRecords == after)
        #expect(after.count == before.count + 1)
        try await reopened.close()
    }

    @Test func aJournalThatCannotBeRestoredAfterAFailureStopsFurtherWrites() async throws {
        let directory = TestDirectory("poisoned")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(io: io)
        let (_, sdk) = try await backend.signUp("alice")
        let before = backend.allRecords
        io.fail(.sync, on: "journal-", with: EIO)
        await #expect(throws: DiaryError.self) { _ = try await sdk.diaries.write(DiaryDraft(body: "lost")) }
        io.heal()
        do {
            _ = try await sdk.diaries.write(DiaryDraft(body: "refused"))
            Issue.record("writes should be refused until the store is reopened")
        } catch let error as DiaryError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("reopen"))
        }
        #expect(backend.allRecords == before)
        try await backend.close()
    }

    @Test func aFullDiskWhileSavingAnAttachmentFailsTheUploadAndLeavesNoFile() async throws {
        let directory = TestDirectory("blob")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(io: io)
        let (_, sdk) = try await backend.signUp("alice")
        let before = backend.allRecords
        io.fail(.write, on: "/attachments/", with: ENOSPC)
        await #expect(throws: DiaryError.self) {
            _ = try await sdk.attachments.upload(AttachmentUpload(data: tinyPNG, contentType: "image/png"))
        }
        #expect(backend.allRecords == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("attachments").path).isEmpty)
        try await backend.close()
    }

    /// A compaction that keeps failing (here a full disk for snapshots) must not start a new journal at every
    /// threshold: the journals stay at two, the failure is reported to the app, and once the disk recovers the next
    /// compaction catches up and leaves one generation.
    @Test func aCompactionThatKeepsFailingIsReportedAndKeepsTheJournalsBounded() async throws {
        let directory = TestDirectory("compaction-failing")
        defer { directory.remove() }
        let io = FailingFileIO()
        let backend = try directory.open(minimumCompactionBytes: 2_000, io: io)
        let (_, sdk) = try await backend.signUp("alice")
        #expect(backend.compactionStatus.consecutiveFailures == 0)
        io.fail(.write, on: "snapshot-", with: ENOSPC)
        let padding = String(repeating: "padding ", count: 40)
        for index in 0..<60 {
            _ = try await sdk.diaries.write(DiaryDraft(body: "entry \(index) \(padding)"))
            try await backend.store.waitForCompaction()
        }
        let journals = try directory.names().filter { $0.hasPrefix("journal-") }
        #expect(journals.count <= 2, "\(journals)")
        let status = backend.compactionStatus
        #expect(status.consecutiveFailures >= 1)
        #expect(status.lastFailure?.code == .unavailable)
        #expect(status.lastFailure?.message.contains("No space left") == true)
        #expect(status.lastFailure?.message.contains("snapshot-") == true)

        // Reopened while the disk is still full: the unfinished compaction is retried, not joined by a third journal.
        try await backend.close()
        let reopened = try directory.open(minimumCompactionBytes: 2_000, io: io)
        let sdkAgain = reopened.repositories(signedInAs: try #require(reopened.allUserIDs.first))
        for index in 0..<30 {
            _ = try await sdkAgain.diaries.write(DiaryDraft(body: "reopened \(index) \(padding)"))
            try await reopened.store.waitForCompaction()
        }
        #expect(try directory.names().filter { $0.hasPrefix("journal-") }.count <= 2)
        #expect(reopened.compactionStatus.consecutiveFailures >= 1)

        io.heal()
        for index in 0..<20 {
            _ = try await sdkAgain.diaries.write(DiaryDraft(body: "healed \(index) \(padding)"))
            try await reopened.store.waitForCompaction()
        }
        #expect(reopened.compactionStatus.consecutiveFailures == 0)
        #expect(reopened.compactionStatus.lastFailure == nil)
        let expected = reopened.allRecords
        try await reopened.close()
        let last = try directory.open()
        #expect(last.allRecords == expected)
        #expect(last.openReport.replayedTransactions < 20)
        try await last.close()
    }
}
