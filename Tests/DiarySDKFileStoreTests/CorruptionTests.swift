@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

/// A store with a few entries, closed: its directory and the rows it held.
func makeClosedStore(_ label: String, entries: Int = 3, compact: Bool = false) async throws -> (TestDirectory, [StoreRecord]) {
    let directory = TestDirectory(label)
    let backend = try directory.open()
    let (_, sdk) = try await backend.signUp("alice")
    for index in 0..<entries { _ = try await sdk.diaries.write(DiaryDraft(body: "entry \(index)")) }
    if compact {
        try await backend.store.compactNow()
        _ = try await sdk.diaries.write(DiaryDraft(body: "after compaction"))
    }
    let records = backend.allRecords
    try await backend.close()
    return (directory, records)
}

func openError(_ directory: TestDirectory) -> DiaryError? {
    do {
        _ = try directory.open()
        return nil
    } catch {
        return error as? DiaryError
    }
}

/// The records of a journal: its bytes up to the space reserved for the next ones (see ``JournalFormat``).
func journalRecords(_ url: URL) throws -> Data {
    let data = try Data(contentsOf: url)
    return data.prefix(try JournalFormat.scan(data, file: url.path, allowTornTail: false).validLength)
}

/// Leaves the first `count` bytes of `record` where the next record goes, as a crash in the middle of that append
/// would: inside the journal's reserved space (the zero bytes after it stay), or, as a journal written before schema
/// 5 ends, appended to a file that ends with its last record.
func tearAppend(of record: Data, keeping count: Int, to url: URL, insideReservedSpace: Bool) throws {
    let whole = try Data(contentsOf: url)
    let records = try journalRecords(url)
    var torn = records + record.prefix(count)
    if insideReservedSpace {
        #expect(whole.count > torn.count, "the journal has no reserved space to tear an append in")
        torn += Data(count: whole.count - torn.count)
    }
    try torn.write(to: url)
}

func flipByte(in url: URL, at offset: Int) throws {
    var data = try Data(contentsOf: url)
    data[offset] ^= 0x5A
    try data.write(to: url)
}

@Suite("File store corruption and recovery")
struct CorruptionTests {
    @Test(arguments: [true, false])
    func aTornRecordAtTheEndOfTheJournalIsCutOffAndReported(insideReservedSpace: Bool) async throws {
        let (directory, records) = try await makeClosedStore("torn", entries: 3)
        defer { directory.remove() }
        let journal = directory.file("journal-1.log")
        let intact = try journalRecords(journal)
        // Half of one more record: what a crash in the middle of an append leaves.
        let torn = JournalFormat.frame(Data(#"{"sequence":99,"changes":[]}"#.utf8))
        try tearAppend(of: torn, keeping: torn.count / 2, to: journal, insideReservedSpace: insideReservedSpace)

        let backend = try directory.open()
        #expect(backend.openReport.recoveredTornTail)
        #expect(backend.openReport.discardedBytes == torn.count / 2)
        #expect(backend.openReport.tornJournalFile?.hasSuffix("journal-1.log") == true)
        #expect(backend.allRecords == records)
        #expect(try Data(contentsOf: journal) == intact)
        try await backend.close()

        let again = try directory.open()
        #expect(!again.openReport.recoveredTornTail)
        try await again.close()
    }

    @Test func aLastRecordCutShortLosesOnlyThatWrite() async throws {
        let directory = TestDirectory("short")
        defer { directory.remove() }
        let backend = try directory.open()
        let (_, sdk) = try await backend.signUp("alice")
        _ = try await sdk.diaries.write(DiaryDraft(body: "kept"))
        let kept = backend.allRecords
        let length = try journalRecords(directory.file("journal-1.log")).count
        _ = try await sdk.diaries.write(DiaryDraft(body: "torn"))
        try await backend.close()
        let journal = directory.file("journal-1.log")
        let full = try journalRecords(journal)
        try full.prefix(length + (full.count - length) / 3).write(to: journal)

        let reopened = try directory.open()
        #expect(reopened.openReport.recoveredTornTail)
        #expect(reopened.allRecords == kept)
        try await reopened.close()
    }

    @Test func aFlippedByteInASnapshotIsATypedErrorNamingTheFileAndOffset() async throws {
        let (directory, _) = try await makeClosedStore("snapshot", entries: 5, compact: true)
        defer { directory.remove() }
        let snapshot = try #require(try directory.names().first { $0.hasPrefix("snapshot-") })
        let data = try Data(contentsOf: directory.file(snapshot))
        let offset = data.count - 40
        try flipByte(in: directory.file(snapshot), at: offset)
        let before = try directory.contents()

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains(snapshot))
        #expect(error.message.contains("byte offset"))
        #expect(try directory.contents() == before)
    }

    @Test func aFlippedByteInTheMiddleOfTheJournalIsATypedError() async throws {
        let (directory, _) = try await makeClosedStore("journal", entries: 3)
        defer { directory.remove() }
        try flipByte(in: directory.file("journal-1.log"), at: 20)
        let before = try directory.contents()

        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("journal-1.log"))
        #expect(error.message.contains("byte offset 0"))
        #expect(try directory.contents() == before)
    }

    @Test func aDamagedLengthInTheMiddleOfTheJournalIsNotMistakenForATornTail() async throws {
        let (directory, _) = try await makeClosedStore("length", entries: 3)
        defer { directory.remove() }
        // The first record's length now points past the end of the file, but intact records follow it.
        try flipByte(in: directory.file("journal-1.log"), at: 3)
        let error = try #require(openError(directory))
        #expect(error.code == .storageCorrupted)
        #expect(error.message.contains("journal-1.log"))
    }

    @Test func temporaryFilesLeftByACrashAreRemovedOnOpen() async throws {
        let (directory, records) = try await makeClosedStore("temporary", entries: 1)
        defer { directory.remove() }
        try Data("half a snapshot".utf8).write(to: directory.file("snapshot-2.json.tmp"))
        let backend = try directory.open()
        #expect(backend.allRecords == records)
        #expect(!(try directory.names()).contains("snapshot-2.json.tmp"))
        try await backend.close()
    }
}
