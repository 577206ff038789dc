import DiarySDK
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
        let oldRecords = try JSONEncoder.diary().encode([WireRecord(.user(user)), WireRecord(.diary(diary))])
        try oldRecords.write(to: directory.file("records.json"))

        let clock = ManualClock(created.addingTimeInterval(86_400))
        let backend = try directory.open(clock: clock)
        #expect(backend.openReport.foundSchemaVersion == 1)
        #expect(backend.openReport.migrations == [FileStoreOpenReport.Migration(from: 1, to: 2)])
        #expect(backend.allRecords == [.user(user), .diary(diary)])
        #expect(try await backend.repositories(signedInAs: user.id).diaries.entry(diary.id).body == "written by version 1")
        try await backend.close()

        let names = try directory.names()
        #expect(names.contains("records.v1.json"))
        #expect(!names.contains("records.json"))
        let header = try JSONDecoder.diary().decode(StoreHeader.self, from: Data(contentsOf: directory.file("store.json")))
        #expect(header.schemaVersion == FileStoreSchema.currentVersion)
        #expect(header.migrations == [.init(from: 1, to: 2, appliedAt: clock.now())])

        let reopened = try directory.open()
        #expect(reopened.openReport.migrations.isEmpty)
        #expect(reopened.openReport.foundSchemaVersion == 2)
        #expect(reopened.allRecords == [.user(user), .diary(diary)])
        try await reopened.close()
    }
}
