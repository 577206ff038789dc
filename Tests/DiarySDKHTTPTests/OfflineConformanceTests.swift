import DiarySDK
import DiarySDKConformance
import DiarySDKHTTP
import DiarySDKOffline
import Foundation
import Testing

/// The conformance suite on the offline backend while online: every device is an `OfflineBackend` (its own
/// replica directory) in front of one world of the shared reference server, waiting for the server's answer to each
/// write (``OfflineBackend/WriteAcknowledgement/serverWhenReachable``) so that another device's read sees it.
struct OfflineHarness: ConformanceHarness {
    func makeWorld() async throws -> any ConformanceWorld {
        let server = try await ReferenceServer.shared()
        return OfflineWorld(control: try await TestClient(baseURL: server.baseURL).newWorld())
    }
}

final class OfflineWorld: ConformanceWorld, @unchecked Sendable {
    let control: TestClient
    /// The replicas' clock, set with the server's.
    let clock = ManualClock(ConformanceSuite.epoch)
    private let devices = Locked<[(OfflineBackend, URL)]>([])

    init(control: TestClient) {
        self.control = control
    }

    var changeLogRetention: Int? { ReferenceServer.changeLogRows }

    func makeDevice() async throws -> DiaryRepositories {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-conformance-\(UUID())")
        var configuration = OfflineBackend.Configuration(
            directory: directory, serverURL: control.baseURL, tokenStore: InMemorySessionStore(),
            acknowledgement: .serverWhenReachable, clock: clock)
        configuration.server.additionalHeaders = ["X-Diary-World": control.world ?? ""]
        let backend = try OfflineBackend(configuration: configuration)
        devices.withLock { $0.append((backend, directory)) }
        return backend.repositories
    }

    func setNow(_ date: Date) async throws {
        try await HTTPWorld(control: control).setNow(date)
        clock.set(date)
    }

    func shutdown() async throws {
        for (backend, directory) in devices.current {
            try await backend.close()
            try? FileManager.default.removeItem(at: directory)
        }
        try await HTTPWorld(control: control).shutdown()
    }
}

@Suite("Offline backend conformance (online, against the reference server)")
struct OfflineConformanceTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: OfflineHarness())
    }
}
