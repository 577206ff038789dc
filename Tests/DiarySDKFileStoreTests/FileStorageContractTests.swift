@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance
import Foundation
import Testing

@testable import DiarySDKFileStore

/// The storage contract's own checks (``StorageContractChecks``) on the file store, on real files.
@Suite("File store: storage contract")
struct FileStorageContractTests {
    @Test func batchedReadsAgreeWithSingleReads() async throws {
        let directory = TestDirectory("contract")
        defer { directory.remove() }
        let store = try FileDiaryStore(directory: directory.path, io: POSIXFileIO(), minimumCompactionBytes: 1 << 20, now: Date())
        try await StorageContractChecks.batchedReadsAgreeWithSingleReads(on: store)
        try await store.close()
    }
}
