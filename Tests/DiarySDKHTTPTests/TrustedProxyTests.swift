import DiarySDK
import Foundation
import Testing

/// The sign-in rate limit behind a proxy: with `DIARY_TRUSTED_PROXIES` naming it, each client the proxy names in
/// `X-Forwarded-For` has a bucket of its own; without it, the header buys nothing.
@Suite("Rate limits behind a trusted proxy")
struct TrustedProxyTests {
    static let body = try! JSONEncoder.diary().encode(Credentials.password(email: "x@example.com", password: "wrong password"))

    /// Sign-in attempts from the proxy on behalf of `client`, until the first 429 (at most `limit + 1`).
    static func attemptsUntilRefused(_ server: TestClient, as client: String, limit: Int) async throws -> Int {
        for attempt in 1...(limit + 1) {
            let reply = try await server.send("POST", "/v1/auth/sign-in", body: body, headers: ["X-Forwarded-For": client])
            if reply.status == 429 { return attempt }
            #expect(reply.status == 401, "\(reply.text)")
        }
        return limit + 2
    }

    @Test func eachClientAProxyNamesHasABucketOfItsOwn() async throws {
        // The test talks to the server over loopback, so loopback is the proxy here.
        let server = try await ReferenceServer.start(
            extraArguments: ["--auth-rate-limit", "3", "--auth-rate-period", "3600"],
            environment: ["DIARY_TRUSTED_PROXIES": "127.0.0.0/8,::1"])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        #expect(try await Self.attemptsUntilRefused(client, as: "198.51.100.1", limit: 3) == 4)
        #expect(try await Self.attemptsUntilRefused(client, as: "198.51.100.2", limit: 3) == 4, "another client is not limited")
        // A client that forges a first hop is still keyed by the address the proxy saw.
        #expect(try await Self.attemptsUntilRefused(client, as: "203.0.113.5, 198.51.100.1", limit: 3) == 1)
    }

    @Test func withoutTrustedProxiesTheHeaderBuysNoFreshBucket() async throws {
        let server = try await ReferenceServer.start(extraArguments: ["--auth-rate-limit", "3", "--auth-rate-period", "3600"])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        #expect(try await Self.attemptsUntilRefused(client, as: "198.51.100.1", limit: 3) == 4)
        #expect(try await Self.attemptsUntilRefused(client, as: "198.51.100.2", limit: 3) == 1)
    }
}
