import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

@testable import DiarySDKFileStore

struct FileStoreHarness: ConformanceHarness {
    func makeWorld() async throws -> any ConformanceWorld {
        try FileStoreWorld()
    }
}

/// One check's backend: a fresh temporary directory and a file store on it, with a manual clock.
struct FileStoreWorld: ConformanceWorld {
    let clock = ManualClock()
    let directory = TestDirectory("conformance")
    let backend: FileStoreBackend

    /// A short change log, so the check that positions past it say `reloadRequired` stays quick.
    let changeLogRetention: Int? = 16

    init() throws {
        backend = try directory.open(clock: clock, changeLogRetention: 16)
    }

    func makeDevice() async throws -> DiaryRepositories {
        backend.makeRepositories()
    }

    func setNow(_ date: Date) async throws {
        clock.set(date)
    }

    func shutdown() async throws {
        try await backend.close()
        directory.remove()
    }
}

@Suite("File store conformance")
struct FileStoreConformanceTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: FileStoreHarness())
    }
}
