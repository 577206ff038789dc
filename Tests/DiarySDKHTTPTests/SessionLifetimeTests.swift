import DiarySDK
@testable import DiarySDKHTTP
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTP backend: change streams and dropped writes")
struct SessionLifetimeTests {
    /// Whether a byte stream finishes within `seconds` (a generous bound) after `action`.
    static func finishes(
        _ stream: AsyncThrowingStream<Data, any Error>, within seconds: UInt64 = 10, after action: () async throws -> Void
    ) async throws -> Bool {
        let reader = Task { () -> Bool in
            do { for try await _ in stream {} } catch {}
            return !Task.isCancelled
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        try await action()
        let timeout = Task {
            try await Task.sleep(nanoseconds: seconds * 1_000_000_000)
            reader.cancel()
        }
        defer { timeout.cancel() }
        return await reader.value
    }

    /// Polls `condition` every 100 ms for up to `seconds` (a generous bound: the whole suite shares two cores with
    /// the server); whether it came true.
    static func eventually(within seconds: Int = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<(seconds * 10) {
            if try await condition() { return true }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return try await condition()
    }

    func rawStream(_ fixture: ServerFixture) async throws -> AsyncThrowingStream<Data, any Error> {
        let token = try #require(try await fixture.store.load()).accessToken
        var request = URLRequest(url: fixture.control.baseURL.appendingPathComponent("v1/changes"), timeoutInterval: 60)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(fixture.control.world ?? "", forHTTPHeaderField: "X-Diary-World")
        return URLSessionTransport(session: .shared).stream(request)
    }

    @Test func theServerEndsAChangeStreamWhenItsAccessTokenExpires() async throws {
        let fixture = try await ServerFixture.make()
        let stream = try await rawStream(fixture)
        #expect(try await Self.finishes(stream) { try await fixture.control.send("POST", "/v1/_test/expire-access-tokens") })
    }

    @Test func theServerEndsAChangeStreamWhenItsSessionSignsOut() async throws {
        let fixture = try await ServerFixture.make()
        let stream = try await rawStream(fixture)
        let token = try #require(try await fixture.store.load()).accessToken
        #expect(try await Self.finishes(stream) { try await fixture.control.send("POST", "/v1/auth/sign-out", token: token) })
    }

    @Test func theClientsChangeStreamCarriesOnWithARefreshedTokenAfterExpiry() async throws {
        let fixture = try await ServerFixture.make(leeway: -3600)
        let stream = fixture.sdk.changes.changes()
        let firstPost = Task { () -> DiaryChange? in
            for await event in stream where event.change?.entity == .post { return event.change }
            return nil
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        // The server ends the stream; wait (bounded) until the client has refreshed and opened it again.
        let reconnected = try await Self.eventually {
            let stats = try await fixture.control.stats()
            return stats.refreshes >= 1 && stats.requests["GET /v1/changes", default: 0] >= 2
        }
        #expect(reconnected, "the client refreshed its token and reopened the stream")
        _ = try await fixture.sdk.posts.publish(.init(title: "After", body: "expiry"))
        let timeout = Task {
            try await Task.sleep(nanoseconds: 30_000_000_000)
            firstPost.cancel()
        }
        defer { timeout.cancel() }
        #expect(await firstPost.value?.kind == .inserted)
        #expect(try await fixture.control.stats().refreshes >= 1)
    }

    @Test func writesFromTwoAppSessionsAtOnceEachSendTheirOwnBodies() async throws {
        // Each app session has its own body-keeping companion: task identifiers of two sessions collide, so bodies
        // kept by identifier alone would be handed to the wrong request (or lost) when both write at once.
        let fixture = try await ServerFixture.make(timeout: 10)
        let config = fixture.backend.configuration
        let phones = (0..<2).map { _ in
            HTTPBackend(configuration: .init(
                baseURL: config.baseURL, session: URLSession(configuration: .ephemeral), tokenStore: fixture.store,
                timeout: 10, additionalHeaders: config.additionalHeaders))
        }
        let titles = try await withThrowingTaskGroup(of: (sent: String, stored: String).self) { group in
            for round in 0..<12 {
                for (index, phone) in phones.enumerated() {
                    group.addTask {
                        let title = "phone \(index) round \(round)"
                        let post = try await phone.repositories.posts.publish(.init(title: title, body: "body of \(title)"))
                        return (title, post.title)
                    }
                }
            }
            return try await group.reduce(into: [(sent: String, stored: String)]()) { $0.append($1) }
        }
        #expect(titles.count == 24)
        #expect(titles.allSatisfy { $0.sent == $0.stored }, "every post has the title its request sent")
        let mine = try await fixture.sdk.posts.posts(by: nil, page: .first(size: 50))
        #expect(Set(mine.items.map(\.title)) == Set(titles.map(\.sent)), "each written once")
    }

    @Test func aWriteWhoseConnectionDropsIsRetriedWellWithinTheTimeoutAndHappensOnce() async throws {
        let fixture = try await ServerFixture.make(retry: RetryPolicy(maximumAttempts: 4, baseDelay: 0.05), timeout: 30)
        let transport = CountingTransport(URLSessionTransport(session: .shared))
        let backend = HTTPBackend(configuration: fixture.backend.configuration, transport: transport)
        _ = try await backend.repositories.posts.feed(page: .first())  // a kept-alive connection to drop
        try await fixture.control.injectFaults([["method": "POST", "path": "/v1/posts", "action": "drop", "times": 1]])
        let started = Date()
        let post = try await backend.repositories.posts.publish(.init(title: "Dropped", body: "then retried"))
        let elapsed = Date().timeIntervalSince(started)
        // The dropped attempt is sent again either by the URL loading system on a new connection (with its body
        // handed over again) or by the client's retry; either way the server runs it once.
        #expect(transport.attempts("POST /v1/posts").sent <= 2)
        #expect(try await fixture.control.stats().requests["POST /v1/posts"] == 1, "the dropped attempt never ran; the retry did")
        // The retry follows the dropped connection at once (well within a second here); the bound only has to tell
        // it apart from waiting out the 30 s timeout, so a loaded machine does not fail it.
        #expect(elapsed < 15, "retried after \(elapsed) s, not after the 30 s timeout")
        let mine = try await fixture.sdk.posts.posts(by: nil, page: .first())
        #expect(mine.items.map(\.id) == [post.id], "written exactly once")
    }
}

/// A real transport that counts the requests it sends and the ones that failed without an answer, by route.
final class CountingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let counts = Locked<[String: (sent: Int, failed: Int)]>([:])

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// How many requests went to a route (`"POST /v1/posts"`) and how many of them got no answer.
    func attempts(_ route: String) -> (sent: Int, failed: Int) {
        counts.current[route] ?? (0, 0)
    }

    func send(_ request: URLRequest, body: Data?) async throws -> (Data, HTTPURLResponse) {
        try await counted(request) { try await base.send(request, body: body) }
    }

    func upload(
        _ request: URLRequest, body: Data, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse) {
        try await counted(request) { try await base.upload(request, body: body, progress: progress) }
    }

    func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> {
        base.stream(request)
    }

    private func counted(
        _ request: URLRequest, _ send: () async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        let route = "\(request.httpMethod ?? "GET") \(request.url?.path ?? "")"
        counts.withLock { $0[route, default: (0, 0)].sent += 1 }
        do {
            return try await send()
        } catch {
            counts.withLock { $0[route, default: (0, 0)].failed += 1 }
            throw error
        }
    }
}
