// docs/CustomStorage.md, "Running the conformance suite". Compiled only: `MyStorage` is the reader's storage
// (StorageHarnessTests.swift).
// snippet.show
import Testing
@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance

// snippet.hide
@Suite(.disabled("compiled only: MyStorage is the reader's storage"))
struct CustomStorageExample {
    // snippet.show
    @Test(arguments: ConformanceSuite.checks)
    func myStorageConforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: StorageConformanceHarness(
            makeStorage: { try await MyStorage.connect(database: freshSchemaName()) },
            tearDown: { try await ($0 as! MyStorage).dropSchema() }))
    }
    // snippet.hide
}
