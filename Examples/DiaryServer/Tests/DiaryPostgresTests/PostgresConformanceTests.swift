@_spi(Storage) import DiaryPostgres
@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance
import Testing

/// The SDK's whole conformance suite on the PostgreSQL store: each check on a fresh schema, dropped after it.
@Suite("PostgreSQL store conformance", .enabled(if: PostgresTestDatabase.shouldRun))
struct PostgresConformanceTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: StorageConformanceHarness(
            makeStorage: { try await PostgresTestDatabase.connect() },
            tearDown: { storage in
                let storage = try #require(storage as? PostgresDiaryStorage)
                try await storage.dropSchema()
                await PostgresTestDatabase.release(storage)
            }))
    }
}
