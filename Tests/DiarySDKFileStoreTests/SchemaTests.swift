@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

@Suite("File store schema versions")
struct SchemaTests {
    @Test func aStoreFromANewerVersionIsRefusedAndLeftUntouched() async throws {
        let (directory, _) = try await makeClosedStore("future", entries: 2)
        defer { directory.remove() }
        try Data(#"{"format":"diarysdk-file-store","migrations":[],"schemaVersion":99}"#.utf8)
            .write(to: directory.file("store.json"))
        try FileManager.default.removeItem(at: directory.file("LOCK"))
        let before = try directory.contents()

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("newer version"))
        #expect(error.message.contains("99"))
        #expect(try directory.contents() == before)
        #expect(!(try directory.names()).contains("LOCK"))
    }

    @Test func aVersionOneStoreIsMigratedOnOpenAndTheMigrationIsRecorded() async throws {
        let directory = TestDirectory("migration")
        defer { directory.remove() }
        let created = Date(timeIntervalSince1970: 1_767_225_600)
        let user = User(id: User.ID(UUID()), nickname: "alice", email: "alice@example.com", createdAt: created)
        let diary = Diary(
            id: Diary.ID(UUID()), authorID: user.id, day: LocalDate(year: 2026, month: 1, day: 1)!, title: "Old",
            body: "written by version 1", createdAt: created, updatedAt: created)
        // The version 1 layout: a header and one array of every row.
        try Data(#"{"format":"diarysdk-file-store","migrations":[],"schemaVersion":1}"#.utf8)
            .write(to: directory.file("store.json"))
        // Users and entries have no enums with values: their rows are the same in every layout.
        let oldRecords = try JSONEncoder.persisted().encode([StoreRecord.user(user), .diary(diary)])
        try oldRecords.write(to: directory.file("records.json"))

        let clock = ManualClock(created.addingTimeInterval(86_400))
        let backend = try directory.open(clock: clock)
        #expect(backend.openReport.foundSchemaVersion == 1)
        #expect(backend.openReport.migrations == [.init(from: 1, to: 2), .init(from: 2, to: 3), .init(from: 3, to: FileStoreSchema.currentVersion)])
        #expect(backend.allRecords == [.user(user), .diary(diary)])
        #expect(try await backend.repositories(signedInAs: user.id).diaries.entry(diary.id).body == "written by version 1")
        try await backend.close()

        let names = try directory.names()
        #expect(names.contains("records.v1.json"))
        #expect(!names.contains("records.json"))
        let header = try JSONDecoder.diary().decode(StoreHeader.self, from: Data(contentsOf: directory.file("store.json")))
        #expect(header.schemaVersion == FileStoreSchema.currentVersion)
        #expect(header.migrations == [
            .init(from: 1, to: 2, appliedAt: clock.now()), .init(from: 2, to: 3, appliedAt: clock.now()),
            .init(from: 3, to: FileStoreSchema.currentVersion, appliedAt: clock.now()),
        ])

        let reopened = try directory.open()
        #expect(reopened.openReport.migrations.isEmpty)
        #expect(reopened.openReport.foundSchemaVersion == FileStoreSchema.currentVersion)
        #expect(reopened.allRecords == [.user(user), .diary(diary)])
        try await reopened.close()
    }

    /// A version 1 store, migrated, then written to.
    private func migratedStoreWithWrites(_ label: String) async throws -> (TestDirectory, Data, [StoreRecord]) {
        let directory = TestDirectory(label)
        let created = Date(timeIntervalSince1970: 1_767_225_600)
        let user = User(id: User.ID(UUID()), nickname: "alice", email: "alice@example.com", createdAt: created)
        let versionOne = Data(#"{"format":"diarysdk-file-store","migrations":[],"schemaVersion":1}"#.utf8)
        try versionOne.write(to: directory.file("store.json"))
        try JSONEncoder.persisted().encode([StoreRecord.user(user)]).write(to: directory.file("records.json"))
        let backend = try directory.open(clock: ManualClock(created))
        let sdk = backend.repositories(signedInAs: user.id)
        for index in 0..<5 { _ = try await sdk.diaries.write(DiaryDraft(body: "after the migration \(index)")) }
        let records = backend.allRecords
        try await backend.close()
        return (directory, versionOne, records)
    }

    /// A `store.json` restored from a backup that still says schema 1, over a store that was migrated and written
    /// to since: the migration would overwrite data it did not write, so it refuses and touches nothing.
    @Test func aMigrationRefusesToRunOverDataItDidNotWrite() async throws {
        let (directory, versionOne, records) = try await migratedStoreWithWrites("rerun")
        defer { directory.remove() }
        try versionOne.write(to: directory.file("store.json"))
        let before = try directory.contents()

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("schema 1"))
        #expect(error.message.contains("journal-1.log"))
        #expect(try directory.contents() == before)

        // Putting back the right header opens the store with every row.
        let header = StoreHeader(
            format: StoreHeader.formatName, schemaVersion: FileStoreSchema.currentVersion, migrations: [])
        try FileStoreSchema.writeHeader(header, in: directory.path, io: POSIXFileIO())
        let reopened = try directory.open()
        #expect(reopened.allRecords == records)
        try await reopened.close()
    }

    /// A crash after the step wrote its files but before `store.json` recorded it: the step runs again over its
    /// own output, which is allowed.
    @Test func aMigrationInterruptedBeforeItsHeaderWasWrittenRunsAgain() async throws {
        let directory = TestDirectory("interrupted-migration")
        defer { directory.remove() }
        let created = Date(timeIntervalSince1970: 1_767_225_600)
        let user = User(id: User.ID(UUID()), nickname: "alice", email: "alice@example.com", createdAt: created)
        try Data(#"{"format":"diarysdk-file-store","migrations":[],"schemaVersion":1}"#.utf8)
            .write(to: directory.file("store.json"))
        try JSONEncoder.persisted().encode([StoreRecord.user(user)]).write(to: directory.file("records.json"))
        try FileStoreSchema.migrateSingleFileToJournal(directory: directory.path, io: POSIXFileIO())

        let backend = try directory.open()
        #expect(backend.openReport.migrations.first == FileStoreOpenReport.Migration(from: 1, to: 2))
        #expect(backend.allRecords == [.user(user)])
        try await backend.close()
    }

    /// A store written by the previous release (schema 2: snapshots without a sequence, journals without a start
    /// record, no clean-close marker), kept as a fixture: it opens, migrates and keeps every row and attachment.
    @Test func aStoreWrittenByThePreviousReleaseOpens() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/store-schema2")
        let directory = TestDirectory("previous-release")
        defer { directory.remove() }
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: fixture, to: directory.url)

        let backend = try directory.open()
        #expect(backend.openReport.foundSchemaVersion == 2)
        #expect(backend.openReport.migrations == [.init(from: 2, to: 3), .init(from: 3, to: FileStoreSchema.currentVersion)])
        // The rows migration wrote them into generation 3.
        #expect(backend.openReport.generation == 3)
        #expect(backend.openReport.replayedTransactions == 3)
        #expect(backend.openReport.isClean)
        #expect(backend.openReport.removedOrphanAttachments == 0)
        let bodies = backend.allRecords.compactMap { if case .diary(let diary) = $0 { diary.body } else { nil } }
        #expect(bodies.sorted() == [
            "after compaction 1", "after compaction 2", "after compaction 3", "before compaction 1",
            "before compaction 2",
        ])
        let attachments = try FileManager.default.contentsOfDirectory(atPath: directory.file("attachments").path)
        #expect(attachments.count == 1)
        let (_, sdk) = try await backend.signUp("bob")
        _ = try await sdk.diaries.write(DiaryDraft(body: "written by this version"))
        let records = backend.allRecords
        try await backend.close()

        let reopened = try directory.open()
        #expect(reopened.allRecords == records)
        #expect(reopened.openReport.isClean)
        try await reopened.close()
    }
}
