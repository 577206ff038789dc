import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

@Suite("URLSessionFeedFetcher against a loopback server")
struct URLSessionFeedFetcherTests {
    static let rss = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>Loopback</title><link>http://127.0.0.1/</link>
        <item><title>One</title><link>http://127.0.0.1/1</link><guid>1</guid></item></channel></rss>
        """

    /// Serves `rss` with validators and answers `304` when the client's validators match.
    static func conditionalRoute(on server: LoopbackHTTPServer, path: String = "/rss") {
        server.route(path) { request in
            if request.header("If-None-Match") == "\"v1\"" || request.header("If-Modified-Since") == "Tue, 10 Mar 2026 12:00:00 GMT" {
                return .init(status: 304, headers: ["ETag": "\"v1\""])
            }
            return .text(
                rss, contentType: "application/rss+xml; charset=UTF-8",
                headers: ["ETag": "\"v1\"", "Last-Modified": "Tue, 10 Mar 2026 12:00:00 GMT"])
        }
    }

    @Test("a conditional GET sends the stored validators and reports 304 as notModified")
    func conditionalGetReturnsNotModified() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        Self.conditionalRoute(on: server)
        let fetcher = URLSessionFeedFetcher()
        guard case .fetched(let document) = try await fetcher.fetch(FeedFetchRequest(url: server.url("/rss"))) else {
            Issue.record("the first fetch should return the document")
            return
        }
        #expect(String(decoding: document.data, as: UTF8.self) == Self.rss)
        #expect(document.etag == "\"v1\"")
        #expect(document.lastModified == "Tue, 10 Mar 2026 12:00:00 GMT")
        #expect(document.mediaType == "application/rss+xml")
        #expect(document.charset == "UTF-8")
        #expect(server.requests.first?.header("If-None-Match") == nil)

        let second = try await fetcher.fetch(FeedFetchRequest(url: server.url("/rss"), etag: document.etag, lastModified: document.lastModified))
        #expect(second == .notModified)
        let seen = try #require(server.requests.last)
        #expect(seen.header("If-None-Match") == "\"v1\"")
        #expect(seen.header("If-Modified-Since") == "Tue, 10 Mar 2026 12:00:00 GMT")
        #expect(seen.header("User-Agent")?.hasPrefix("DiarySDK-FeedFetcher") == true)
        #expect(seen.header("Accept")?.contains("application/rss+xml") == true)
    }

    @Test("If-Modified-Since alone also yields notModified")
    func lastModifiedAloneYieldsNotModified() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        Self.conditionalRoute(on: server)
        let response = try await URLSessionFeedFetcher().fetch(
            FeedFetchRequest(url: server.url("/rss"), lastModified: "Tue, 10 Mar 2026 12:00:00 GMT"))
        #expect(response == .notModified)
        #expect(server.requests.last?.header("If-None-Match") == nil)
    }

    @Test("redirects are followed, the final address is reported and the validators travel along")
    func redirectsAreFollowed() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        Self.conditionalRoute(on: server, path: "/new/rss")
        server.route("/old", .redirect(to: "/moved", status: 301))
        server.route("/moved", .redirect(to: server.url("/new/rss").absoluteString, status: 307))
        let fetcher = URLSessionFeedFetcher()
        guard case .fetched(let document) = try await fetcher.fetch(FeedFetchRequest(url: server.url("/old"))) else {
            Issue.record("expected the document")
            return
        }
        #expect(document.finalURL == server.url("/new/rss"))
        let second = try await fetcher.fetch(FeedFetchRequest(url: server.url("/old"), etag: "\"v1\""))
        #expect(second == .notModified)
        #expect(server.requests.last?.path == "/new/rss")
        #expect(server.requests.last?.header("If-None-Match") == "\"v1\"")
    }

    @Test("a redirect loop fails with invalidInput for feedURL instead of spinning")
    func redirectLoopFails() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/a", .redirect(to: "/b"))
        server.route("/b", .redirect(to: "/a"))
        let error = try await fetchError(URLSessionFeedFetcher(configuration: .init(maxRedirects: 3)), server.url("/a"))
        #expect(error.code == .invalidInput)
        #expect(error.field == "feedURL")
        #expect(server.hits("/a") + server.hits("/b") == 4)
    }

    @Test("a body over the size limit is refused with invalidInput, reason tooLong")
    func sizeLimitIsEnforced() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/big", .text(String(repeating: "<p>x</p>", count: 2_000), contentType: "application/rss+xml"))
        server.route("/small", .text(Self.rss, contentType: "application/rss+xml"))
        let fetcher = URLSessionFeedFetcher(configuration: .init(maxBytes: 1_024))
        let error = try await fetchError(fetcher, server.url("/big"))
        #expect(error.code == .invalidInput)
        #expect(error.reason == .tooLong)
        #expect(error.field == "feedURL")
        guard case .fetched = try await fetcher.fetch(FeedFetchRequest(url: server.url("/small"))) else {
            Issue.record("a small document still passes")
            return
        }
    }

    @Test("404 and 410 map to notFound, 5xx to unavailable with the status and Retry-After, 403 to invalidInput")
    func statusCodesMapToDiaryErrors() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/gone", .init(status: 410))
        server.route("/broken", .init(status: 500))
        server.route("/busy", .init(status: 503, headers: ["Retry-After": "120"]))
        server.route("/private", .init(status: 403))
        let fetcher = URLSessionFeedFetcher()
        let missing = try await fetchError(fetcher, server.url("/missing"))
        #expect(missing.code == .notFound)
        #expect(missing.httpStatus == 404)
        #expect(try await fetchError(fetcher, server.url("/gone")).code == .notFound)
        let broken = try await fetchError(fetcher, server.url("/broken"))
        #expect(broken.code == .unavailable)
        #expect(broken.httpStatus == 500)
        let busy = try await fetchError(fetcher, server.url("/busy"))
        #expect(busy.code == .unavailable)
        #expect(busy.retryAfter == 120)
        let refused = try await fetchError(fetcher, server.url("/private"))
        #expect(refused.code == .invalidInput)
        #expect(refused.field == "feedURL")
        #expect(refused.httpStatus == 403)
    }

    @Test("an HTML page is returned as a document labelled HTML, for autodiscovery")
    func htmlPagesAreLabelled() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/", .text("<html><head><title>Blog</title></head></html>", contentType: "text/html; charset=utf-8"))
        guard case .fetched(let page) = try await URLSessionFeedFetcher().fetch(FeedFetchRequest(url: server.url("/"))) else {
            Issue.record("expected the page")
            return
        }
        #expect(page.isHTML)
        #expect(page.charset == "utf-8")
    }

    @Test("a closed port is unavailable, a non-web address is invalid input")
    func unreachableAndInvalidAddresses() async throws {
        let server = try LoopbackHTTPServer()
        let url = server.url("/rss")
        server.stop()
        let fetcher = URLSessionFeedFetcher(configuration: .init(timeout: 5))
        #expect(try await fetchError(fetcher, url).code == .unavailable)
        let invalid = try await fetchError(fetcher, URL(string: "file:///etc/passwd")!)
        #expect(invalid.code == .invalidInput)
        #expect(invalid.field == "feedURL")
    }

    @Test("cancelling the task cancels the request with a cancelled error")
    func cancellationIsReported() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let release = DispatchSemaphore(value: 0)
        server.route("/slow") { _ in
            _ = release.wait(timeout: .now() + 10)
            return .text(Self.rss, contentType: "application/rss+xml")
        }
        let fetcher = URLSessionFeedFetcher()
        let task = Task { try await fetcher.fetch(FeedFetchRequest(url: server.url("/slow"))) }
        while server.hits("/slow") == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        let outcome = await task.result
        release.signal()
        guard case .failure(let error as DiaryError) = outcome else {
            Issue.record("expected a cancelled error, got \(outcome)")
            return
        }
        #expect(error.code == .cancelled)
    }

    private func fetchError(_ fetcher: some FeedFetching, _ url: URL) async throws -> DiaryError {
        do {
            let response = try await fetcher.fetch(FeedFetchRequest(url: url))
            Issue.record("expected an error, got \(response)")
            return DiaryError(.server, "no error")
        } catch let error as DiaryError {
            return error
        }
    }
}
