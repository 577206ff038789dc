import Foundation
import Testing

/// Writes ``StoreFixture`` into the directory named by `DIARYSDK_WRITE_STORE_FIXTURE` (which must not exist yet):
/// how `Fixtures/store-schema3` was made. Skipped unless that variable is set; it checks nothing.
///
/// `DIARYSDK_WRITE_STORE_FIXTURE=/tmp/store swift test --filter StoreFixtureWriter`, then copy the directory without
/// its `LOCK` file.
@Suite("Store fixture writer")
struct StoreFixtureWriter {
    static let target = ProcessInfo.processInfo.environment["DIARYSDK_WRITE_STORE_FIXTURE"]

    @Test(.enabled(if: target != nil, "set DIARYSDK_WRITE_STORE_FIXTURE to write the fixture"))
    func writeTheFixtureStore() async throws {
        let url = URL(fileURLWithPath: try #require(Self.target), isDirectory: true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try await StoreFixture.write(to: TestDirectory(url: url))
    }
}
