// The storage contract's tests as docs/CustomStorage.md and the doc comments of StorageConformanceHarness and
// StorageContractChecks show them. Compiled only: `MyStorage` is the reader's storage (the package's own storages
// run these checks in their own test targets).
@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance
import Testing

/// The reader's storage, as the examples name it.
class MyStorage {
    static func connect(database: String) async throws -> any DiaryStorage { throw MyStorageMissing() }
    static func empty() async throws -> any DiaryStorage { throw MyStorageMissing() }
    func dropSchema() async throws {}
}
struct MyStorageMissing: Error {}
func freshSchemaName() -> String { "diary_test" }

@Suite(.disabled("compiled only: MyStorage is the reader's storage"))
struct StorageHarnessExamples {
    // snippet.begin: Sources/DiarySDKConformance/StorageConformanceHarness.swift
    // snippet.show
    @Test(arguments: ConformanceSuite.checks)
    func myStorageConforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: StorageConformanceHarness { try await MyStorage.empty() })
    }
    // snippet.hide
}

@Suite(.disabled("compiled only: MyStorage is the reader's storage"))
struct StorageContractExamples {
    // snippet.begin: Sources/DiarySDKConformance/StorageContractChecks.swift
    // snippet.show
    @Test func batchedReadsAgree() async throws {
        try await StorageContractChecks.batchedReadsAgreeWithSingleReads(on: try await MyStorage.empty())
    }
    // snippet.hide
}
