import DiarySDK
@testable import DiarySDKHTTP
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server's answer to sign-up, sign-in and refresh, as the tests read it.
struct TokenPair: Decodable, Equatable {
    var accessToken: String
    var refreshToken: String
}

@Suite("Reference server: sign-in hardening (rate limits, strict tokens, refresh, time zones, push tokens)")
struct AuthHardeningTests {
    /// A server of its own with a tiny sign-in budget, so the limit is met in a few calls.
    static let limitedServer = Task { try await ReferenceServer.start(extraArguments: ["--auth-rate-limit", "3", "--auth-rate-period", "3600"]) }

    func device(_ control: TestClient, timeZone: TimeZone = .current, deviceToken: DeviceToken? = nil) -> HTTPBackend {
        HTTPBackend(configuration: .init(
            baseURL: control.baseURL, deviceToken: deviceToken, additionalHeaders: ["X-Diary-World": control.world ?? ""],
            timeZone: timeZone))
    }

    @Test func theEmailCheckSignUpAndSignInAnswer429WithRetryAfterPastTheirLimit() async throws {
        let server = try await Self.limitedServer.value
        let control = try await TestClient(baseURL: server.baseURL).newWorld()
        for _ in 0..<3 {
            #expect(try await control.send("GET", "/v1/availability/email?value=a%40example.com").status == 200)
        }
        let refused = try await control.send("GET", "/v1/availability/email?value=a%40example.com")
        #expect(refused.status == 429)
        #expect(refused.headers["content-type"] == "application/problem+json")
        #expect(Int(refused.headers["retry-after"] ?? "").map { $0 >= 1 } == true, "Retry-After: \(refused.headers)")
        #expect(try refused.json(ProblemBody.self).code == "rate_limited")
        #expect(try await control.send("GET", "/v1/availability/nickname?value=someone").status == 200, "others are not limited")

        let signIn = try await control.newWorld()
        let body = try JSONEncoder.diary().encode(Credentials.password(email: "x@example.com", password: "wrong password"))
        for _ in 0..<3 { #expect(try await signIn.send("POST", "/v1/auth/sign-in", body: body).status == 401) }
        let limited = try await signIn.send("POST", "/v1/auth/sign-in", body: body)
        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"] != nil)

        // Sign-up draws on the same bucket: its conflict would otherwise name registered emails without limit.
        let signUp = try await control.newWorld()
        let draft = try JSONEncoder.diary().encode(
            SignUpRequest(email: "taken@example.com", password: "correct horse", nickname: "taken"))
        #expect(try await signUp.send("POST", "/v1/auth/sign-up", body: draft).status == 201)
        for _ in 0..<2 { #expect(try await signUp.send("POST", "/v1/auth/sign-up", body: draft).status == 409) }
        #expect(try await signUp.send("POST", "/v1/auth/sign-up", body: draft).status == 429)
        #expect(try await signUp.send("POST", "/v1/auth/sign-in", body: body).status == 429, "one bucket for all three")

        // Every spelling of a limited path that reaches its handler draws on the same bucket.
        let spellings = try await control.newWorld()
        for _ in 0..<3 { #expect(try await spellings.send("POST", "/v1/auth/sign-in", body: body).status == 401) }
        for path in ["/v1/auth/sign-in/", "//v1/auth/sign-in", "/v1//auth/sign-in"] {
            #expect(try await spellings.send("POST", path, body: body).status == 429, "\(path)")
        }
        for path in ["/v1/availability/email/?value=a%40example.com", "//v1/availability/email?value=a%40example.com"] {
            #expect(try await spellings.send("GET", path).status == 429, "\(path)")
        }
        let error = await #expect(throws: DiaryError.self) {
            try await device(signIn).repositories.accounts.signIn(.password(email: "x@example.com", password: "wrong password"))
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfter.map { $0 >= 1 } == true)
    }

    @Test func aTokenWhoseSignatureDiffersOnlyInItsUnusedBitsIsRefused() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()).accessToken
        #expect(try await fixture.control.send("GET", "/v1/me", token: token).status == 200)
        // 32 signature bytes are 43 base64url characters: the last one carries 2 unused bits.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(alphabet.firstIndex(of: token.last!))
        for flipped in [last ^ 1, last ^ 2, last ^ 3] {
            let variant = String(token.dropLast()) + String(alphabet[flipped])
            #expect(try await fixture.control.send("GET", "/v1/me", token: variant).status == 401)
        }
        #expect(try await fixture.control.send("GET", "/v1/me", token: token + "=").status == 401, "no padding")
    }

    @Test func theRefreshTokenJustRotatedAwayGetsTheSameAnswerOnceMoreAndOlderOnesAreReuse() async throws {
        let fixture = try await ServerFixture.make()
        let first = try #require(try await fixture.store.load()?.refreshToken)
        func refresh(_ token: String) async throws -> TestClient.Reply {
            try await fixture.control.sendJSON("POST", "/v1/auth/refresh", ["refreshToken": token])
        }
        let answer = try await refresh(first)
        #expect(answer.status == 200)
        let lostAndRetried = try await refresh(first)
        #expect(lostAndRetried.status == 200, "a retry of a refresh whose answer was lost: \(lostAndRetried.text)")
        #expect(try lostAndRetried.json(TokenPair.self) == answer.json(TokenPair.self), "the same pair again")
        let next = try await refresh(try answer.json(TokenPair.self).refreshToken)
        #expect(next.status == 200)
        #expect(try await refresh(first).status == 401, "two rotations ago is reuse")
        #expect(try await refresh(try next.json(TokenPair.self).refreshToken).status == 401, "reuse ended the session")
    }

    @Test func aClientWhoseRefreshAnswerWasLostKeepsItsSession() async throws {
        let fixture = try await ServerFixture.make(retry: .never)
        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        // Every answer is lost while the network is down, however often the URL loading system re-sends by itself
        // on a new connection (once or more, depending on how many kept-alive connections it had).
        try await fixture.control.injectFaults([["method": "POST", "path": "/v1/auth/refresh", "action": "dropResponse", "times": 50]])
        let lost = await #expect(throws: DiaryError.self) { try await fixture.sdk.posts.feed(page: .first()) }
        #expect(lost?.code == .unavailable)
        #expect(try await fixture.control.stats().refreshes >= 1, "the server rotated the token; the answer was lost")
        // The network is back: the next refresh presents the token the server already rotated away.
        try await fixture.control.injectFaults([])
        _ = try await fixture.sdk.posts.feed(page: .first())
        #expect(try await fixture.store.load() != nil, "still signed in")
        #expect(try await fixture.sdk.accounts.currentUser()?.nickname == "alice")
    }

    @Test func signUpAndIdentitySignInGiveNewAccountsTheDevicesTimeZone() async throws {
        let control = try await TestClient(baseURL: try await ReferenceServer.shared().baseURL).newWorld()
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let user = try await device(control, timeZone: tokyo).repositories.accounts.signUp(
            .init(email: "tokyo@example.com", password: "correct horse battery", nickname: "tokyo"))
        #expect(user.settings?.timeZoneIdentifier == "Asia/Tokyo")
        let lima = try #require(TimeZone(identifier: "America/Lima"))
        let external = try await device(control, timeZone: lima).repositories.accounts.signIn(
            .identityToken(provider: "apple", token: "test:lima-1"))
        #expect(external.settings?.timeZoneIdentifier == "America/Lima")
        let explicit = try await device(control, timeZone: tokyo).repositories.accounts.signUp(
            .init(email: "seoul@example.com", password: "correct horse battery", nickname: "seoul", timeZoneIdentifier: "Asia/Seoul"))
        #expect(explicit.settings?.timeZoneIdentifier == "Asia/Seoul", "the request's own zone wins")
    }

    @Test func signingOutUnregistersTheConfiguredPushToken() async throws {
        let fixture = try await ServerFixture.make()
        let phone = DeviceToken(token: "apns-shared-phone", platform: .apns)
        let shared = device(fixture.control, deviceToken: phone).repositories
        _ = try await shared.accounts.signIn(.password(email: "alice@example.com", password: "correct horse battery"))
        #expect(try await fixture.sdk.accounts.deviceTokens() == [phone], "registered at sign-in")
        try await shared.accounts.signOut()
        #expect(try await fixture.sdk.accounts.deviceTokens() == [], "gone at sign-out")
    }
}

/// The fields of a problem document the tests read.
struct ProblemBody: Decodable {
    var code: String
    var status: Int
}
