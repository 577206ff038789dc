import DiarySDK
import Foundation

/// Feed documents and a loopback feed server for the blog-sync checks.
enum BlogSyncFixtures {
    /// One item of a generated feed.
    struct Item {
        var guid: String?
        var link: String?
        var title: String
        var body: String
        var date: String?
        var categories: [String] = []
    }

    /// An RSS 2.0 document; `link`s are made absolute against `base`.
    static func rss(title: String, site: String, items: [Item]) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(title)</title><link>\(site)</link><description>d</description>

            """
        for item in items {
            xml += "<item><title>\(item.title)</title>"
            if let link = item.link { xml += "<link>\(link)</link>" }
            if let guid = item.guid { xml += "<guid isPermaLink=\"false\">\(guid)</guid>" }
            if let date = item.date { xml += "<pubDate>\(date)</pubDate>" }
            for category in item.categories { xml += "<category>\(category)</category>" }
            xml += "<description><![CDATA[\(item.body)]]></description></item>\n"
        }
        return xml + "</channel></rss>\n"
    }

    /// An Atom 1.0 document with one entry per item.
    static func atom(title: String, site: String, items: [Item]) -> String {
        var xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>\(title)</title><id>urn:feed</id>
            <link rel="alternate" href="\(site)"/><updated>2026-03-09T00:00:00Z</updated>

            """
        for item in items {
            xml += "<entry><title>\(item.title)</title><id>\(item.guid ?? "urn:none")</id>"
            if let link = item.link { xml += "<link rel=\"alternate\" href=\"\(link)\"/>" }
            xml += "<updated>\(item.date ?? "2026-03-09T00:00:00Z")</updated><content type=\"html\"><![CDATA[\(item.body)]]></content></entry>\n"
        }
        return xml + "</feed>\n"
    }

    /// An HTML page advertising `feedPath` (or nothing).
    static func page(title: String, feedPath: String?) -> String {
        let link = feedPath.map { "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"RSS\" href=\"\($0)\">" } ?? ""
        return "<!doctype html><html><head><title>\(title)</title>\(link)</head><body><h1>\(title)</h1></body></html>"
    }

    /// Serves `document()` at `path` with a content-derived `ETag`, answering `304` when `If-None-Match` matches.
    static func serveConditionally(_ server: LoopbackHTTPServer, _ path: String, _ document: @escaping @Sendable () -> String) {
        server.route(path) { request in
            let body = document()
            let etag = "\"" + String(body.hashValue, radix: 36) + "\""
            if request.header("If-None-Match") == etag { return .init(status: 304, headers: ["ETag": etag]) }
            return .text(body, contentType: "application/rss+xml; charset=utf-8", headers: ["ETag": etag])
        }
    }

    /// Three dated items of the blog at `site`.
    static func threeItems(site: String) -> [Item] {
        [
            Item(guid: "p-1", link: site + "posts/1", title: "First", body: "<p>One</p>", date: "Sun, 08 Mar 2026 03:00:00 GMT", categories: ["swift"]),
            Item(guid: "p-2", link: site + "posts/2", title: "Second", body: "<p>Two</p>", date: "Mon, 09 Mar 2026 16:00:00 GMT"),
            Item(guid: "p-3", link: site + "posts/3", title: "Third", body: "<p>Three</p>", date: "Tue, 10 Mar 2026 01:00:00 GMT"),
        ]
    }

    /// A blog registered directly (no discovery) for a feed on the server.
    static func registerDirectly(_ actor: ConformanceUser, _ server: LoopbackHTTPServer, _ path: String, title: String) async throws -> Blog {
        try await actor.sdk.blogs.register(BlogDraft(title: title, siteURL: server.url("/"), feedURL: server.url(path)))
    }

    /// Every post of `actor`, newest first.
    static func posts(of actor: ConformanceUser) async throws -> [Post] {
        var all: [Post] = []
        for try await page in PageSequence(first: .first(size: 50), fetch: { try await actor.sdk.posts.posts(by: nil, page: $0) }) {
            all += page.items
        }
        return all
    }

    /// A sync use case for `actor` with the real fetcher and a clock stopped at the suite's epoch.
    static func sync(_ actor: ConformanceUser, fetcher: URLSessionFeedFetcher) -> BlogSync {
        BlogSync(blogs: actor.sdk.blogs, fetcher: fetcher, clock: ManualClock(ConformanceSuite.epoch))
    }
}
