import DiarySDK
import DiarySDKConformance
import DiarySDKInMemory
import Foundation
import MeteredBackend
import Testing

/// A custom backend runs the SDK's conformance suite exactly like the built-in ones.
struct MeteredHarness: ConformanceHarness {
    struct World: ConformanceWorld {
        let clock = ManualClock()
        let backend: InMemoryBackend
        let meter = Meter()

        init() {
            backend = InMemoryBackend(configuration: .init(
                clock: clock,
                engine: .init(passwordHashIterations: 1_000, identityTokenVerifier: ConformanceIdentityTokenVerifier())))
        }

        func makeDevice() async throws -> DiaryRepositories {
            MeteredRepositories.wrap(backend.makeRepositories(), meter: meter)
        }

        func setNow(_ date: Date) async throws { clock.set(date) }

        func shutdown() async throws { backend.reset() }
    }

    func makeWorld() async throws -> any ConformanceWorld { World() }
}

@Suite("Custom backend: metered repositories")
struct MeteredBackendTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: MeteredHarness())
    }

    @Test func countsCallsAndFailuresPerOperation() async throws {
        let meter = Meter()
        let sdk = MeteredRepositories.wrap(InMemoryBackend().repositories, meter: meter)
        _ = try await sdk.accounts.signUp(.init(email: "m@example.com", password: "password123", nickname: "meter"))
        _ = try await sdk.diaries.write(DiaryDraft(body: "one"))
        await #expect(throws: DiaryError.self) { try await sdk.diaries.write(DiaryDraft(body: " ")) }
        #expect(meter.snapshot["diaries.write"]?.calls == 2)
        #expect(meter.snapshot["diaries.write"]?.failures == 1)
        #expect(meter.report().hasPrefix("diaries.write: 2 calls, 1 failed"))
    }
}
