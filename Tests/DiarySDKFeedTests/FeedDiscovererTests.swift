import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

@Suite("FeedDiscoverer against a loopback server")
struct FeedDiscovererTests {
    static func rss(_ title: String) -> LoopbackHTTPServer.Response {
        .text(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>\(title)</title><link>http://127.0.0.1/</link></channel></rss>",
            contentType: "application/rss+xml")
    }

    static func page(_ links: [String]) -> LoopbackHTTPServer.Response {
        let tags = links.map { "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"\($0)\">" }.joined()
        return .text("<html><head>\(tags)</head><body>hi</body></html>", contentType: "text/html")
    }

    @Test("a broken advertised feed is skipped for the next one")
    func brokenLinkIsSkipped() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/", Self.page(["/missing.xml", "/not-a-feed", "/real.xml"]))
        server.route("/not-a-feed", .text("<html>nope</html>", contentType: "text/html"))
        server.route("/real.xml", Self.rss("Real"))
        let found = try await FeedDiscoverer(fetcher: URLSessionFeedFetcher()).discover(server.url("/").absoluteString)
        #expect(found.feedURL == server.url("/real.xml"))
        #expect(found.method == .pageLink)
        #expect(found.title == "Real")
        #expect(found.siteURL == server.url("/"))
    }

    @Test("a page without links falls back to common paths under the typed path first")
    func commonPathsUnderTheTypedPath() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/blog/", Self.page([]))
        server.route("/blog/rss", Self.rss("Sub"))
        server.route("/feed", Self.rss("Root"))
        let found = try await FeedDiscoverer(fetcher: URLSessionFeedFetcher()).discover(server.url("/blog/").absoluteString)
        #expect(found.feedURL == server.url("/blog/rss"))
        #expect(found.method == .commonPath)
        #expect(found.siteURL == server.url("/blog/"))
    }

    @Test("a typed feed address that redirects is stored at its final address; its site is the feed's link")
    func redirectedFeedAddress() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/old-feed", .redirect(to: "/new-feed", status: 301))
        server.route("/new-feed", Self.rss("Moved"))
        let found = try await FeedDiscoverer(fetcher: URLSessionFeedFetcher()).discover(server.url("/old-feed").absoluteString)
        #expect(found.feedURL == server.url("/new-feed"))
        #expect(found.method == .typedAddress)
        #expect(found.siteURL.absoluteString == "http://127.0.0.1/")
    }

    @Test("an unreachable site is unavailable, not 'no feed', and no common paths are tried")
    func unreachableSite() async throws {
        let server = try LoopbackHTTPServer()
        let url = server.url("/")
        server.stop()
        do {
            _ = try await FeedDiscoverer(fetcher: URLSessionFeedFetcher()).discover(url.absoluteString)
            Issue.record("expected an error")
        } catch let error as DiaryError {
            #expect(error.code == .unavailable)
        }
    }

    @Test("a site that answers 404 everywhere gives the typed 'no feed' error for field url, naming the status")
    func nothingAnywhere() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        do {
            _ = try await FeedDiscoverer(fetcher: URLSessionFeedFetcher()).discover(server.url("/").absoluteString)
            Issue.record("expected an error")
        } catch let error as DiaryError {
            #expect(error.code == .invalidInput)
            #expect(error.field == "url")
            #expect(
                error.message
                    == "\(server.url("/").absoluteString) answered HTTP 404, and no RSS, Atom or JSON feed found at the usual feed paths either")
        }
        #expect(server.hits("/feed.xml") == 1, "each candidate is fetched once")
    }
}
