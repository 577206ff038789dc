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
            for await change in stream where change.entity == .post { return change }
            return nil
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        try await Task.sleep(nanoseconds: 2_500_000_000)  // the server ends the stream; the client refreshes
        _ = try await fixture.sdk.posts.publish(.init(title: "After", body: "expiry"))
        let timeout = Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            firstPost.cancel()
        }
        defer { timeout.cancel() }
        #expect(await firstPost.value?.kind == .inserted)
        #expect(try await fixture.control.stats().refreshes >= 1)
    }

    @Test func aWriteWhoseConnectionDropsIsRetriedWellWithinTheTimeoutAndHappensOnce() async throws {
        let fixture = try await ServerFixture.make(retry: RetryPolicy(maximumAttempts: 4, baseDelay: 0.05), timeout: 30)
        _ = try await fixture.sdk.posts.feed(page: .first())  // a kept-alive connection to drop
        try await fixture.control.injectFaults([["method": "POST", "path": "/v1/posts", "action": "drop", "times": 1]])
        let started = Date()
        let post = try await fixture.sdk.posts.publish(.init(title: "Dropped", body: "then retried"))
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 5, "retried after \(elapsed) s, not after the 30 s timeout")
        let mine = try await fixture.sdk.posts.posts(by: nil, page: .first())
        #expect(mine.items.map(\.id) == [post.id], "written exactly once")
    }
}
