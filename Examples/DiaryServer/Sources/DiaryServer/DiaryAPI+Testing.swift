import DiarySDK
import Foundation
import Hummingbird

/// The body of `POST /v1/_test/clock`.
struct ClockBody: Codable, Sendable {
    var now: Date
}

extension DiaryAPI {
    /// Test-mode routes: worlds, the data clock, faults and counters. Never registered outside `--test-mode`.
    func registerTesting(_ router: Router<DiaryRequestContext>) {
        guard options.testMode else { return }
        let registry = self.registry
        route(router, .post, "/v1/_test/worlds", auth: false, body: .empty) { call in
            try .created(Wrapped(value: try await registry.create(recordsContract: call.queryFlag("record")).id))
        }
        route(router, .delete, "/v1/_test/worlds/:worldID", auth: false) { call in
            await registry.remove(call.context.parameters.get("worldID") ?? "")
            return .noContent
        }
        route(router, .post, "/v1/_test/clock", auth: false) { call in
            guard let clock = call.world.manualClock else { throw DiaryError(.forbidden, "this world has no test clock") }
            clock.set(try call.decode(ClockBody.self).now)
            return .noContent
        }
        route(router, .post, "/v1/_test/faults", auth: false) { call in
            let rules = try call.decode([FaultRule].self)
            try rules.forEach { try $0.validate() }
            call.world.faults.replace(with: rules)
            return .noContent
        }
        route(router, .post, "/v1/_test/expire-access-tokens", auth: false, body: .empty) { call in
            try await call.world.tokens.expireAccessTokens()
            return .noContent
        }
        route(router, .get, "/v1/_test/stats", auth: false) { call in
            try .ok(call.world.stats.current)
        }
        let routes = self.routes
        route(router, .get, "/v1/_test/routes", auth: false) { _ in
            try .ok(routes.current)
        }
    }
}
