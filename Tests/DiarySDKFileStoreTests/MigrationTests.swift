import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

/// Stores written by earlier releases, kept as fixtures (Fixtures/README.md), opened from a copy.
@Suite("File store migrations of stores from earlier releases")
struct MigrationTests {
    /// A copy of a fixture store in a fresh temporary directory; the fixture itself is never opened.
    static func copyOfFixture(_ name: String) throws -> TestDirectory {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/" + name)
        let directory = TestDirectory("fixture-\(name)")
        try FileManager.default.removeItem(at: directory.url)
        try FileManager.default.copyItem(at: fixture, to: directory.url)
        return directory
    }

    @Test func theSchema3FixtureHoldsEveryRowItsGeneratorWrote() async throws {
        let directory = try Self.copyOfFixture("store-schema3")
        defer { directory.remove() }
        let backend = try directory.open()
        #expect(backend.openReport.foundSchemaVersion == 3)
        #expect(backend.openReport.isClean)
        #expect(backend.openReport.replayedTransactions == StoreFixture.journalTransactions.count)
        #expect(backend.allRecords == StoreFixture.expectedRecords)
        #expect(Set(backend.allRecords.map { WireRecord.kind(of: $0) }) == Set(WireRecord.Kind.allCases))
        try await backend.close()
    }
}
