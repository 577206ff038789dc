import DiarySDK
import DiarySDKConformance
import DiarySDKInMemory
import Foundation
import Testing

struct InMemoryHarness: ConformanceHarness {
    func makeWorld() async throws -> any ConformanceWorld {
        InMemoryWorld()
    }
}

struct InMemoryWorld: ConformanceWorld {
    let clock = ManualClock()
    let backend: InMemoryBackend

    /// A short change log, so the check that positions past it say `reloadRequired` stays quick.
    let changeLogRetention: Int? = 16

    init() {
        backend = InMemoryBackend(configuration: .init(
            clock: clock,
            engine: .init(passwordHashIterations: 1_000, identityTokenVerifier: ConformanceIdentityTokenVerifier()),
            changeLogRetention: 16))
    }

    func makeDevice() async throws -> DiaryRepositories {
        backend.makeRepositories()
    }

    func setNow(_ date: Date) async throws {
        clock.set(date)
    }

    func shutdown() async throws {
        backend.reset()
    }
}

@Suite("In-memory backend conformance")
struct InMemoryConformanceTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: InMemoryHarness())
    }
}
