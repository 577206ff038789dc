import DiarySDK
import DiarySDKConformance
import DiarySDKHTTP
import Foundation
import Testing

struct HTTPHarness: ConformanceHarness {
    func makeWorld() async throws -> any ConformanceWorld {
        let server = try await ReferenceServer.shared()
        return HTTPWorld(control: try await TestClient(baseURL: server.baseURL).newWorld(recorded: true))
    }
}

/// One isolated world on the shared reference server; every device is a fresh `HTTPBackend`.
struct HTTPWorld: ConformanceWorld {
    let control: TestClient

    var changeLogRetention: Int? { ReferenceServer.changeLogRows }

    func makeDevice() async throws -> DiaryRepositories {
        HTTPBackend(configuration: .init(
            baseURL: control.baseURL, additionalHeaders: ["X-Diary-World": control.world ?? ""])
        ).repositories
    }

    func setNow(_ date: Date) async throws {
        struct Clock: Encodable { var now: Date }
        let reply = try await control.sendJSON("POST", "/v1/_test/clock", Clock(now: date))
        guard reply.status == 204 else { throw ServerError("setting the clock answered \(reply.status): \(reply.text)") }
    }

    func shutdown() async throws {
        try await control.send("DELETE", "/v1/_test/worlds/\(control.world ?? "")")
    }
}

@Suite("HTTP backend conformance (against the reference server)")
struct HTTPConformanceTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: HTTPHarness())
    }
}
