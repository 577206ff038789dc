@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

@Suite("File store salvage: reading a damaged store up to the damage")
struct SalvageTests {
    /// A closed store with one user and five entries, and that user's id.
    func makeStore(_ label: String) async throws -> (TestDirectory, User.ID) {
        let directory = TestDirectory(label)
        let backend = try directory.open()
        let (user, sdk) = try await backend.signUp("alice")
        for index in 0..<5 { _ = try await sdk.diaries.write(DiaryDraft(day: LocalDate("2026-03-0\(index + 1)"), body: "entry \(index)")) }
        try await backend.close()
        return (directory, user.id)
    }

    func bodies(_ sdk: DiaryRepositories) async throws -> [String] {
        try await sdk.diaries.entries(DiaryQuery(includeHidden: true), page: .first(size: 50)).items.map(\.body).sorted()
    }

    @Test func aStoreDamagedInTheMiddleIsReadUpToTheDamageAndNothingIsWritten() async throws {
        let (directory, userID) = try await makeStore("salvage-middle")
        defer { directory.remove() }
        let journal = directory.file("journal-1.log")
        let data = try Data(contentsOf: journal)
        let scan = try JournalFormat.scan(data, file: journal.path, allowTornTail: false)
        // The fourth entry's record ("entry 3"), with the fifth intact after it: damage, not a torn tail.
        let damaged = scan.offsets[scan.offsets.count - 2]
        try flipByte(in: journal, at: damaged + JournalFormat.headerSize + 3)
        #expect(openError(directory)?.code == .storageCorrupted)
        let before = try directory.contents()

        let salvage = try FileStoreSalvage(directory: directory.url)
        #expect(salvage.report.damage == "the journal \(journal.standardizedFileURL.path) is damaged at byte offset \(damaged)")
        #expect(salvage.report.replayedTransactions == scan.payloads.count - 3)
        let sdk = salvage.repositories(signedInAs: userID)
        #expect(try await bodies(sdk) == ["entry 0", "entry 1", "entry 2"])
        let refused = await #expect(throws: DiaryError.self) { _ = try await sdk.diaries.write(DiaryDraft(body: "not now")) }
        #expect(refused?.code == .forbidden)
        #expect(try directory.contents() == before, "salvage wrote to the store")
    }

    @Test func aMissingJournalStopsTheReadingThereAndNamesIt() async throws {
        let directory = TestDirectory("salvage-gap")
        defer { directory.remove() }
        let backend = try directory.open()
        let (user, sdk) = try await backend.signUp("alice")
        _ = try await sdk.diaries.write(DiaryDraft(body: "before the compaction"))
        try await backend.store.compactNow()
        _ = try await sdk.diaries.write(DiaryDraft(body: "after the compaction"))
        try await backend.close()
        let names = try directory.names()
        // Snapshot 2 and journal 2 hold everything; journal 3 (if a later compaction made one) is what goes missing.
        let newest = names.compactMap { name -> Int? in
            guard name.hasPrefix("journal-"), name.hasSuffix(".log") else { return nil }
            return Int(name.dropFirst(8).dropLast(4))
        }.max() ?? 1
        try Data().write(to: directory.file("journal-\(newest + 2).log"))

        let salvage = try FileStoreSalvage(directory: directory.url)
        #expect(salvage.report.damage?.contains("is missing journal-\(newest + 1).log") == true)
        #expect(salvage.report.unreadJournals == ["journal-\(newest + 2).log"])
        #expect(try await bodies(salvage.repositories(signedInAs: user.id)) == ["after the compaction", "before the compaction"])
    }

    @Test func anIntactStoreIsReadWholeAndItsSavedSessionSignsIn() async throws {
        let directory = TestDirectory("salvage-whole")
        defer { directory.remove() }
        let backend = try directory.open(sessionFile: true)
        _ = try await backend.repositories.accounts.signUp(
            SignUpRequest(email: "bob@example.com", password: "correct horse battery", nickname: "bob"))
        _ = try await backend.repositories.diaries.write(DiaryDraft(body: "kept"))
        try await backend.close()
        let before = try directory.contents()

        let salvage = try FileStoreSalvage(directory: directory.url)
        #expect(salvage.report.damage == nil)
        #expect(salvage.report.unreadJournals.isEmpty)
        let sdk = salvage.repositories
        #expect(try await sdk.accounts.restoreSession()?.nickname == "bob")
        #expect(try await bodies(sdk) == ["kept"])
        #expect(try directory.contents() == before)
    }

    @Test func aDirectoryWithoutAStoreIsRefused() throws {
        let directory = TestDirectory("salvage-none")
        defer { directory.remove() }
        #expect(throws: DiaryError.self) { _ = try FileStoreSalvage(directory: directory.url) }
        #expect(try directory.names().isEmpty)
    }
}
