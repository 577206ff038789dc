import DiarySDK
import Foundation
import Hummingbird
import Logging

/// The body of `GET /health` and of a ready `GET /ready`.
struct ProbeStatus: Codable, Sendable {
    var status: String
}

extension DiaryAPI {
    /// Probes for a load balancer or an orchestrator: `/health` (liveness) and `/ready` (the storage answers).
    func registerOperations(_ router: Router<DiaryRequestContext>) {
        route(router, .get, "/health", auth: false) { _ in
            try .ok(ProbeStatus(status: "ok"))
        }
        route(router, .get, "/ready", auth: false) { call in
            try await Self.readiness(of: call.world.backend)
        }
    }

    /// `GET /ready`: 200 when the storage answers a read.
    /// - Throws: ``DiaryError/Code/unavailable`` (503) when it does not; the cause goes to the log only.
    static func readiness(of backend: any StorageBackend) async throws -> Reply {
        do {
            try await backend.checkReady()
        } catch {
            let code = (error as? DiaryError)?.code.rawValue ?? "unknown"
            ServerLog.current.warning("not ready: the storage did not answer a read", metadata: ["code": .string(code)])
            throw DiaryError(.unavailable, "the storage does not answer", retryAfter: 1)
        }
        return try .ok(ProbeStatus(status: "ready"))
    }
}
