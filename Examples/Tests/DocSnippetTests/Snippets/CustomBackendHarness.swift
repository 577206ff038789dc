// docs/CustomBackend.md, "Running the conformance suite on it": the harness (CustomBackendTest.swift runs the suite
// on it with MyBackend, a stand-in for the reader's backend).
// snippet.show
import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

struct MyHarness: ConformanceHarness {
    struct World: ConformanceWorld {
        let clock: ManualClock            // the clock the backend reads, so the checks can move it
        let backend: MyBackend            // shared by every device of this world

        func makeDevice() async throws -> DiaryRepositories { backend.newSignedOutDevice() }
        func setNow(_ date: Date) async throws { clock.set(date) }
        func shutdown() async throws { try await backend.destroy() }
    }

    func makeWorld() async throws -> any ConformanceWorld {
        let clock = ManualClock()
        let backend = try MyBackend(clock: clock, identityTokenVerifier: ConformanceIdentityTokenVerifier())
        return World(clock: clock, backend: backend)
    }
}
