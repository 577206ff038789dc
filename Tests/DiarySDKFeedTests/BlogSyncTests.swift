@testable import DiarySDK
import DiarySDKConformance
import DiarySDKInMemory
import Foundation
import Testing

@Suite("BlogSync")
struct BlogSyncTests {
    static func signedIn() async throws -> DiaryRepositories {
        let backend = InMemoryBackend(configuration: .init(clock: ManualClock(ConformanceSuite.epoch)))
        let sdk = backend.makeRepositories()
        _ = try await sdk.accounts.signUp(SignUpRequest(email: "a@example.com", password: ConformanceSuite.password, nickname: "alice"))
        return sdk
    }

    static let feed = """
        <?xml version="1.0"?><rss version="2.0"><channel><title>B</title><link>http://127.0.0.1/</link>
        <item><title>One</title><guid>1</guid><pubDate>Mon, 09 Mar 2026 10:00:00 GMT</pubDate><description>x</description></item>
        </channel></rss>
        """

    @Test("concurrent syncs through one BlogSync share a single fetch")
    func singleFlight() async throws {
        let sdk = try await Self.signedIn()
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let gate = DispatchSemaphore(value: 0)
        server.route("/rss") { _ in
            _ = gate.wait(timeout: .now() + 10)
            return .text(Self.feed, contentType: "application/rss+xml")
        }
        let blog = try await sdk.blogs.register(BlogDraft(title: "B", siteURL: server.url("/"), feedURL: server.url("/rss")))
        let sync = BlogSync(blogs: sdk.blogs, fetcher: URLSessionFeedFetcher())
        async let first = sync.sync(blog.id)
        async let second = sync.sync(blog.id)
        async let third = sync.sync(blog.id)
        while server.hits("/rss") == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(server.hits("/rss") == 1)
        gate.signal()
        let reports = try await [first, second, third]
        #expect(reports.allSatisfy { $0 == reports[0] })
        #expect(reports[0].created == 1)
        #expect(server.hits("/rss") == 1)
        // The flight is over: the next sync fetches again.
        gate.signal()
        _ = try await sync.sync(blog.id)
        #expect(server.hits("/rss") == 2)
    }

    @Test("a failed sync keeps the validators and records the error; the next good sync clears it")
    func failureIsRecorded() async throws {
        let sdk = try await Self.signedIn()
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let broken = Locked(false)
        server.route("/rss") { _ in
            broken.current ? .init(status: 503) : .text(Self.feed, contentType: "application/rss+xml", headers: ["ETag": "\"e1\""])
        }
        let blog = try await sdk.blogs.register(BlogDraft(title: "B", siteURL: server.url("/"), feedURL: server.url("/rss")))
        let sync = BlogSync(blogs: sdk.blogs, fetcher: URLSessionFeedFetcher(), clock: ManualClock(ConformanceSuite.epoch))
        _ = try await sync.sync(blog.id)
        broken.withLock { $0 = true }
        await #expect(throws: DiaryError.self) { try await sync.sync(blog.id) }
        let failed = try await sdk.blogs.blog(blog.id).sync
        #expect(failed.etag == "\"e1\"")
        #expect(failed.lastError?.contains("HTTP 503") == true)
        #expect(failed.lastSyncedAt == ConformanceSuite.epoch)
        broken.withLock { $0 = false }
        _ = try await sync.sync(blog.id)
        #expect(try await sdk.blogs.blog(blog.id).sync.lastError == nil)
    }

    @Test("syncAll without a signed-in user throws unauthenticated")
    func syncAllNeedsAUser() async throws {
        let backend = InMemoryBackend()
        let sync = BlogSync(blogs: backend.makeRepositories().blogs, fetcher: URLSessionFeedFetcher())
        do {
            for try await _ in sync.syncAll() {}
            Issue.record("expected an error")
        } catch let error as DiaryError {
            #expect(error.code == .unauthenticated)
        }
    }

    @Test("items are imported oldest first; undated items come last, in reverse feed order (feeds list newest first)")
    func importOrder() {
        var a = FeedItem(id: "a")
        a.published = Date(timeIntervalSince1970: 200)
        var b = FeedItem(id: "b")
        b.published = Date(timeIntervalSince1970: 100)
        let c = FeedItem(id: "c")
        let d = FeedItem(id: "d")
        #expect(BlogSync.oldestFirst([a, c, b, d]).map(\.id) == ["b", "a", "d", "c"])
    }
}
