import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

/// A signed-in device in a fresh world of the shared server, with the world's control client.
struct ServerFixture {
    let control: TestClient
    let backend: HTTPBackend
    let store: InMemorySessionStore
    var sdk: DiaryRepositories { backend.repositories }

    static func make(
        retry: RetryPolicy = RetryPolicy(maximumAttempts: 4, baseDelay: 0.05), timeout: TimeInterval = 30,
        leeway: TimeInterval = 10, nickname: String = "alice", on server: ReferenceServer? = nil
    ) async throws -> ServerFixture {
        let base = if let server { server } else { try await ReferenceServer.shared() }
        let control = try await TestClient(baseURL: base.baseURL).newWorld()
        let store = InMemorySessionStore()
        let headers = ["X-Diary-World": control.world ?? ""]
        _ = try await HTTPBackend(configuration: .init(baseURL: base.baseURL, tokenStore: store, additionalHeaders: headers))
            .repositories.accounts.signUp(
                .init(email: "\(nickname)@example.com", password: "correct horse battery", nickname: nickname))
        let backend = HTTPBackend(configuration: .init(
            baseURL: base.baseURL, tokenStore: store, timeout: timeout, retry: retry, additionalHeaders: headers,
            refreshLeeway: leeway))
        return ServerFixture(control: control, backend: backend, store: store)
    }
}

@Suite("HTTP backend against injected server faults")
struct ServerFaultTests {
    @Test func serverErrorsAreRetriedUntilTheRequestSucceeds() async throws {
        let fixture = try await ServerFixture.make(retry: RetryPolicy(maximumAttempts: 3, baseDelay: 0.05))
        try await fixture.control.injectFaults([["method": "GET", "path": "/v1/feed", "action": "status", "status": 500, "times": 2]])
        let page = try await fixture.sdk.posts.feed(page: .first())
        #expect(page.items.isEmpty)
    }

    @Test func aServerErrorWithoutRetriesBecomesADiaryErrorWithStatusAndMessage() async throws {
        let fixture = try await ServerFixture.make(retry: .never)
        try await fixture.control.injectFaults([["method": "GET", "path": "/v1/feed", "action": "status", "status": 500, "times": 1]])
        let error = await #expect(throws: DiaryError.self) { try await fixture.sdk.posts.feed(page: .first()) }
        #expect(error?.code == .server)
        #expect(error?.httpStatus == 500)
        #expect(error?.message == "injected fault 500")
    }

    @Test func rateLimitingWaitsForRetryAfterThenSucceeds() async throws {
        let fixture = try await ServerFixture.make()
        try await fixture.control.injectFaults([
            ["method": "GET", "path": "/v1/feed", "action": "status", "status": 429, "retryAfter": "1", "times": 1]
        ])
        let start = Date()
        _ = try await fixture.sdk.posts.feed(page: .first())
        #expect(Date().timeIntervalSince(start) >= 0.9, "the client waited for Retry-After before retrying")
    }

    @Test func aRetryAfterLongerThanThePolicyAllowsFailsAtOnceWithIt() async throws {
        let fixture = try await ServerFixture.make(retry: RetryPolicy(maximumAttempts: 3, maximumRetryAfter: 5))
        try await fixture.control.injectFaults([
            ["method": "GET", "path": "/v1/feed", "action": "status", "status": 503, "retryAfter": "120", "times": 1]
        ])
        let error = await #expect(throws: DiaryError.self) { try await fixture.sdk.posts.feed(page: .first()) }
        #expect(error?.code == .unavailable)
        #expect(error?.httpStatus == 503)
        #expect(error?.retryAfter == 120)
    }

    // Two drops: FoundationNetworking (libcurl) itself retries once when a reused keep-alive connection dies.
    @Test func aDroppedConnectionIsRetried() async throws {
        let fixture = try await ServerFixture.make()
        try await fixture.control.injectFaults([["method": "GET", "path": "/v1/feed", "action": "drop", "times": 2]])
        _ = try await fixture.sdk.posts.feed(page: .first())
    }

    @Test func aDroppedConnectionWithoutRetriesIsUnavailable() async throws {
        let fixture = try await ServerFixture.make(retry: .never)
        // Enough drops to outlast the transport's own transparent retries of a dead keep-alive connection.
        try await fixture.control.injectFaults([["method": "GET", "path": "/v1/feed", "action": "drop", "times": 10]])
        let error = await #expect(throws: DiaryError.self) { try await fixture.sdk.posts.feed(page: .first()) }
        #expect(error?.code == .unavailable)
    }

    @Test func aResponseSlowerThanTheTimeoutFailsAsUnavailable() async throws {
        let fixture = try await ServerFixture.make(retry: .never, timeout: 0.5)
        try await fixture.control.injectFaults([["method": "GET", "path": "/v1/feed", "action": "delay", "delay": 3, "times": 1]])
        let error = await #expect(throws: DiaryError.self) { try await fixture.sdk.posts.feed(page: .first()) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("timed out") == true)
    }

    @Test func aMalformedBodyBecomesAServerError() async throws {
        let fixture = try await ServerFixture.make()
        try await fixture.control.injectFaults([["method": "GET", "path": "/v1/feed", "action": "malformed", "times": 1]])
        let error = await #expect(throws: DiaryError.self) { try await fixture.sdk.posts.feed(page: .first()) }
        #expect(error?.code == .server)
        #expect(error?.message.contains("not a valid") == true)
    }

    @Test func aCreateRetriedAfterItsResponseWasLostMakesExactlyOnePost() async throws {
        // The server runs the create, then closes the connection unanswered; the client gives up after its timeout
        // and retries with the same Idempotency-Key.
        let fixture = try await ServerFixture.make(timeout: 5)
        try await fixture.control.injectFaults([["method": "POST", "path": "/v1/posts", "action": "dropResponse", "times": 1]])
        let post = try await fixture.sdk.posts.publish(.init(title: "Once", body: "only once"))
        let mine = try await fixture.sdk.posts.posts(by: nil, page: .first())
        #expect(mine.items.map(\.id) == [post.id])
        #expect(try await fixture.control.stats().requests["POST /v1/posts"] == 2, "the retry reached the server and was replayed")
    }

    @Test func cancellingTheCallerCancelsARequestInFlight() async throws {
        let fixture = try await ServerFixture.make()
        try await fixture.control.injectFaults([["method": "GET", "path": "/v1/feed", "action": "delay", "delay": 10, "times": 1]])
        let sdk = fixture.sdk
        let task = Task { try await sdk.posts.feed(page: .first()) }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        let error = await #expect(throws: DiaryError.self) { try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test func aStormOfFiftyRequestsOnAnExpiredTokenMakesTheServerRefreshOnce() async throws {
        let fixture = try await ServerFixture.make(leeway: -3600)
        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        let sdk = fixture.sdk
        try await withThrowingTaskGroup(of: Void.self) { group in
            for size in 1...50 {
                group.addTask { _ = try await sdk.posts.feed(page: .first(size: size)) }
            }
            try await group.waitForAll()
        }
        #expect(try await fixture.control.stats().refreshes == 1)
    }
}
