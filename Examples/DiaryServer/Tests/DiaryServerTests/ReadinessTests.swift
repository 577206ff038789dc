@_spi(Engine) import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// `GET /ready`: 200 when the storage answers, a 503 problem when it does not.
@Suite("Readiness")
struct ReadinessTests {
    /// A storage that answers or fails its readiness read, as told.
    struct Backend: StorageBackend {
        var failure: (any Error)?

        func engine(actingAs userID: User.ID?) -> DiaryEngine {
            fatalError("the readiness probe never asks for an engine")
        }

        func checkReady() async throws {
            if let failure { throw failure }
        }
    }

    @Test func aStorageThatAnswersIsReady() async throws {
        guard case .json(let body, let status) = try await DiaryAPI.readiness(of: Backend()) else {
            Issue.record("not a JSON reply")
            return
        }
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"status":"ready"}"#)
    }

    @Test func aStorageThatFailsIsUnavailableWithoutSayingWhy() async throws {
        let cause = DiaryError(.unavailable, "connection refused by db.internal:5432 for user diary")
        do {
            _ = try await DiaryAPI.readiness(of: Backend(failure: cause))
            Issue.record("a failing storage was ready")
        } catch let error as DiaryError {
            let problem = Problem(error)
            #expect(problem.status == 503)
            #expect(problem.code == "unavailable")
            #expect(!problem.detail.contains("db.internal"))
        }
    }

    @Test func theMemoryStoreIsReadyOnceOpen() async throws {
        let backend = try await makeStorage(
            options: ServerOptions.parse(["--in-memory"], environment: [:]), world: "main", clock: nil,
            engine: DiaryEngine.Configuration())
        _ = try await DiaryAPI.readiness(of: backend.backend)
    }
}
