// docs/CustomBackend.md and the doc comments of ConformanceHarness and ConformanceSuite: the test that runs every
// check on a harness. Run here on MyHarness (CustomBackendHarness.swift).
import DiarySDKConformance
import Testing

// snippet.show
@Test(arguments: ConformanceSuite.checks)
func myBackendConforms(_ check: ConformanceCheck) async throws {
    try await check.run(on: MyHarness())
}
