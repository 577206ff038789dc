@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance
import Testing

@testable import DiarySDKInMemory

/// The storage contract's own checks (``StorageContractChecks``) on the in-memory store.
@Suite("In-memory store: storage contract")
struct InMemoryStorageContractTests {
    @Test func batchedReadsAgreeWithSingleReads() async throws {
        try await StorageContractChecks.batchedReadsAgreeWithSingleReads(on: InMemoryDiaryStore())
    }
}
