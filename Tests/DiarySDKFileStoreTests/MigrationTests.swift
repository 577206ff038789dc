@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

/// Stores written by earlier releases, kept as fixtures (Fixtures/README.md), opened from a copy.
@Suite("File store migrations of stores from earlier releases")
struct MigrationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A copy of a fixture store in a fresh temporary directory; the fixture itself is never opened.
    static func copyOfFixture(_ name: String) throws -> TestDirectory {
        let directory = TestDirectory("fixture-\(name)")
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: directory.url)
        return directory
    }

    static let migrationTime = ManualClock(StoreFixture.at(86_400))

    @Test func theSchema3FixtureHoldsEveryRowItsGeneratorWrote() async throws {
        let directory = try Self.copyOfFixture("store-schema3")
        defer { directory.remove() }
        let backend = try directory.open()
        #expect(backend.openReport.foundSchemaVersion == 3)
        #expect(backend.openReport.isClean)
        #expect(backend.openReport.replayedTransactions == StoreFixture.journalTransactions.count)
        #expect(backend.allRecords == StoreFixture.expectedRecords)
        // Every kind but those added after the fixture was written (retired ids and outbox entries, which no
        // fixture store holds).
        #expect(Set(backend.allRecords.map(\.kind)) == Set(StoreRecord.Kind.allCases).subtracting([.retiredID, .outbox]))
        try await backend.close()
    }

    @Test func aSchema3StoreMigratesInPlaceToTheCurrentLayoutAndKeepsEveryRow() async throws {
        let directory = try Self.copyOfFixture("store-schema3")
        defer { directory.remove() }
        let backend = try directory.open(clock: Self.migrationTime)
        #expect(backend.openReport.foundSchemaVersion == 3)
        #expect(backend.openReport.migrations == [.init(from: 3, to: FileStoreSchema.currentVersion)])
        #expect(backend.openReport.generation == 3)
        #expect(backend.openReport.isClean)
        #expect(backend.allRecords == StoreFixture.expectedRecords)

        // Through the public API, as the users.
        let alice = backend.repositories(signedInAs: StoreFixture.alice)
        #expect(try await alice.attachments.data(for: StoreFixture.picture) == StoreFixture.pictureBytes)
        #expect(try await alice.diaries.entry(StoreFixture.privateEntry).body.hasSuffix("why rename needs it too."))
        let imported = try await alice.posts.post(StoreFixture.importedPost)
        #expect(imported.source == .blog(BlogImport(
            blogID: StoreFixture.blog, guid: "tag:alice.example.com,2026:1",
            url: URL(string: "https://alice.example.com/2026/11/first")!)))
        let comments = try await alice.comments.comments(on: .post(StoreFixture.importedPost), page: .first())
        #expect(comments.items.map(\.comment.body) == ["Journal-only comment."])
        try await backend.close()

        try await Self.expectCurrentLayoutOnDisk(directory)
        let header = try JSONDecoder.diary().decode(StoreHeader.self, from: Data(contentsOf: directory.file("store.json")))
        #expect(header.migrations == [.init(from: 3, to: FileStoreSchema.currentVersion, appliedAt: Self.migrationTime.now())])
    }

    /// The files a migrated fixture holds: schema 4, rows only in the current layout, the replaced files kept
    /// byte for byte.
    static func expectCurrentLayoutOnDisk(_ directory: TestDirectory) async throws {
        let header = try JSONDecoder.diary().decode(StoreHeader.self, from: Data(contentsOf: directory.file("store.json")))
        #expect(header.schemaVersion == FileStoreSchema.currentVersion)
        #expect(try directory.names() == [
            "LOCK", "attachments", "closed.json", "journal-3.log", FileDiaryStore.replacedFilesFolder, "snapshot-3.json",
            "store.json",
        ])
        let snapshot = try Data(contentsOf: directory.file("snapshot-3.json"))
        let snapshotHeader = try SnapshotFormat.decode(snapshot, file: "snapshot-3.json") { _ in }
        #expect(snapshotHeader.layout == PersistedLayout.current.rawValue)
        #expect(snapshotHeader.schemaVersion == FileStoreSchema.currentVersion)
        #expect(snapshotHeader.sequence == 5)
        #expect(try SnapshotFormat.decode(snapshot, file: "snapshot-3.json") == StoreFixture.expectedRecords)
        let journal = try JournalFormat.scan(
            Data(contentsOf: directory.file("journal-3.log")), file: "journal-3.log", allowTornTail: false)
        #expect(journal.payloads.count == 1)
        let start = try #require(try JSONSerialization.jsonObject(with: journal.payloads[0]) as? [String: Any])
        #expect(start["layout"] as? Int == 2)
        #expect(start["opensJournal"] as? Int == 3)
        #expect(start["sequence"] as? Int == 5)
        for name in ["snapshot-3.json", "journal-3.log"] {
            let text = String(decoding: try Data(contentsOf: directory.file(name)), as: UTF8.self)
            #expect(!text.contains("\"_0\""), "\(name) still holds synthesized enum coding")
        }
        let fixture = fixtures.appendingPathComponent("store-schema3")
        for name in ["snapshot-2.json", "journal-2.log"] {
            let kept = directory.file(FileDiaryStore.replacedFilesFolder + "/" + name)
            #expect(try Data(contentsOf: kept) == Data(contentsOf: fixture.appendingPathComponent(name)))
        }
        let picture = "attachments/" + StoreFixture.picture.description
        #expect(try Data(contentsOf: directory.file(picture)) == StoreFixture.pictureBytes)
    }

    @Test func reopeningAMigratedStoreChangesNothingAndWritesCarryOn() async throws {
        let directory = try Self.copyOfFixture("store-schema3")
        defer { directory.remove() }
        try await directory.open(clock: Self.migrationTime).close()
        let migrated = try directory.contents()

        let reopened = try directory.open()
        #expect(reopened.openReport.foundSchemaVersion == FileStoreSchema.currentVersion)
        #expect(reopened.openReport.migrations.isEmpty)
        #expect(reopened.allRecords == StoreFixture.expectedRecords)
        try await reopened.close()
        #expect(try directory.contents() == migrated)

        let writer = try directory.open()
        let entry = try await writer.repositories(signedInAs: StoreFixture.carol).diaries
            .write(DiaryDraft(body: "After the migration."))
        let records = writer.allRecords
        try await writer.close()
        let last = try directory.open()
        #expect(last.allRecords == records)
        #expect(try await last.repositories(signedInAs: StoreFixture.carol).diaries.entry(entry.id).body == "After the migration.")
        #expect(last.openReport.isClean)
        try await last.close()
    }

    /// An open that fails at each step of the migration (a full disk, an I/O error: what a crash at that point
    /// leaves, plus the temporary files) leaves a store that the next open migrates, with every row.
    @Test(arguments: [
        (FailingFileIO.Operation.write, "journal-3.log"), (.sync, "snapshot-3.json"),
        (.makeDirectory, FileDiaryStore.replacedFilesFolder), (.write, "store.json"),
    ])
    func aMigrationInterruptedAtAnyStepIsFinishedByTheNextOpen(
        operation: FailingFileIO.Operation, file: String
    ) async throws {
        let directory = try Self.copyOfFixture("store-schema3")
        defer { directory.remove() }
        let io = FailingFileIO()
        io.fail(operation, on: file, with: EIO)
        #expect(throws: DiaryError.self) { try directory.open(io: io) }
        let header = try JSONDecoder.diary().decode(StoreHeader.self, from: Data(contentsOf: directory.file("store.json")))
        #expect(header.schemaVersion == 3)

        let backend = try directory.open(clock: Self.migrationTime)
        #expect(backend.openReport.foundSchemaVersion == 3)
        #expect(backend.openReport.migrations == [.init(from: 3, to: FileStoreSchema.currentVersion)])
        #expect(backend.allRecords == StoreFixture.expectedRecords)
        #expect(backend.openReport.isClean)
        try await backend.close()
        try await Self.expectCurrentLayoutOnDisk(directory)

        let again = try directory.open()
        #expect(again.openReport.migrations.isEmpty)
        #expect(again.allRecords == StoreFixture.expectedRecords)
        try await again.close()
    }

    /// A crash after the migration started journal 3 but before it wrote `store.json`, then an older release opened
    /// the store (still schema 3 to it) and wrote: journal 3 starts in the current layout and goes on in the old one.
    /// Each record says its layout, so every row reads back, and the next open finishes the migration into a new
    /// generation.
    @Test func aJournalThatAnOlderReleaseWroteOnAfterAnInterruptedMigrationIsReadRecordByRecord() async throws {
        let directory = try Self.copyOfFixture("store-schema3")
        defer { directory.remove() }
        // What the old release appends: a row in the synthesized layout, without a `layout` key.
        let legacyComment = #"{"changes":[{"put":{"comment":{"authorID":"00000000-0000-4000-8000-000000000003","#
            + #""body":"Written by the old release.","createdAt":"2026-11-24T08:00:00.123456Z","#
            + #""id":"00000000-0000-4000-8000-000000000066","isAnonymous":false,"#
            + #""target":{"post":{"_0":"00000000-0000-4000-8000-000000000050"}},"#
            + #""updatedAt":"2026-11-24T08:00:00.123456Z"}}}],"sequence":6}"#
        var journal = try JournalFormat.newJournal(generation: 3, after: 5)
        journal.append(JournalFormat.frame(Data(legacyComment.utf8)))
        try journal.write(to: directory.file("journal-3.log"))

        let backend = try directory.open(clock: Self.migrationTime)
        #expect(backend.openReport.migrations == [.init(from: 3, to: FileStoreSchema.currentVersion)])
        #expect(backend.openReport.generation == 4)
        let comment = CommentRecord(
            id: StoreFixture.id(66), target: .post(StoreFixture.originalPost), parentID: nil, authorID: StoreFixture.carol,
            isAnonymous: false, body: "Written by the old release.", mood: nil,
            createdAt: StoreFixture.at(86_400), updatedAt: StoreFixture.at(86_400))
        var expected = LocalDatabase()
        expected.put(contentsOf: StoreFixture.expectedRecords + [.comment(comment)])
        #expect(backend.allRecords == expected.allRecords)
        try await backend.close()
        let names = try directory.names()
        #expect(names.contains("snapshot-4.json") && names.contains("journal-4.log"))
        #expect(!names.contains("journal-3.log") && !names.contains("snapshot-2.json"))
        let kept = try FileManager.default.contentsOfDirectory(
            atPath: directory.file(FileDiaryStore.replacedFilesFolder).path)
        #expect(kept.sorted() == ["journal-2.log", "journal-3.log", "snapshot-2.json"])
        let again = try directory.open()
        #expect(again.openReport.migrations.isEmpty)
        #expect(again.allRecords == expected.allRecords)
        try await again.close()
    }

    /// A store written by the release before journals reserved space (schema 4, rows already in the current layout):
    /// it opens with every row, only `store.json` is rewritten (to schema 5), and it goes on writing with reserved
    /// space and reopening clean.
    @Test func aSchema4StoreOpensWithEveryRowAndOnlyItsHeaderChanges() async throws {
        let directory = try Self.copyOfFixture("store-schema4")
        defer { directory.remove() }
        let fixture = Self.fixtures.appendingPathComponent("store-schema4")
        let backend = try directory.open(clock: Self.migrationTime)
        #expect(backend.openReport.foundSchemaVersion == 4)
        #expect(backend.openReport.migrations == [.init(from: 4, to: 5)])
        #expect(backend.openReport.generation == 2)
        #expect(backend.openReport.isClean)
        #expect(backend.openReport.replayedTransactions == StoreFixture.journalTransactions.count)
        #expect(backend.allRecords == StoreFixture.expectedRecords)
        for name in ["snapshot-2.json", "journal-2.log"] {
            #expect(try Data(contentsOf: directory.file(name)) == Data(contentsOf: fixture.appendingPathComponent(name)))
        }
        let header = try JSONDecoder.diary().decode(StoreHeader.self, from: Data(contentsOf: directory.file("store.json")))
        #expect(header.schemaVersion == 5)
        #expect(header.migrations == [.init(from: 4, to: 5, appliedAt: Self.migrationTime.now())])

        let carol = backend.repositories(signedInAs: StoreFixture.carol)
        let entry = try await carol.diaries.write(DiaryDraft(body: "Written at schema 5."))
        let journal = try Data(contentsOf: directory.file("journal-2.log"))
        #expect(journal.count > (try journalRecords(directory.file("journal-2.log")).count), "no space reserved")
        let records = backend.allRecords
        try await backend.close()

        let reopened = try directory.open()
        #expect(reopened.openReport.migrations.isEmpty)
        #expect(reopened.openReport.isClean)
        #expect(reopened.allRecords == records)
        #expect(try await reopened.repositories(signedInAs: StoreFixture.carol).diaries.entry(entry.id).body == "Written at schema 5.")
        try await reopened.close()
    }

    /// Files whose rows are in a layout newer than this code reads are refused, naming the layout, and left as
    /// they are.
    @Test func rowsInANewerLayoutAreRefusedAndLeftUntouched() async throws {
        let directory = try Self.copyOfFixture("store-schema3")
        defer { directory.remove() }
        try await directory.open().close()
        var snapshot = try String(contentsOf: directory.file("snapshot-3.json"), encoding: .utf8)
        snapshot = snapshot.replacingOccurrences(of: #""layout":2,"#, with: #""layout":9,"#)
        try snapshot.write(to: directory.file("snapshot-3.json"), atomically: true, encoding: .utf8)
        let before = try directory.contents()
        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("layout 9, newer than this version of DiarySDK reads"))
        #expect(try directory.contents() == before)

        let payload = #"{"changes":[],"layout":9,"opensJournal":3,"sequence":5}"#
        try JournalFormat.frame(Data(payload.utf8)).write(to: directory.file("journal-3.log"))
        snapshot = snapshot.replacingOccurrences(of: #""layout":9,"#, with: #""layout":2,"#)
        try snapshot.write(to: directory.file("snapshot-3.json"), atomically: true, encoding: .utf8)
        let journalError = try #require(openError(directory))
        #expect(journalError.code == .storageCorrupted)
        #expect(journalError.message.contains("layout 9, newer than this version of DiarySDK reads"))
    }
}
