import Foundation
import Testing
@testable import DiarySDK

@Suite("FeedDiscovery")
struct FeedDiscoveryTests {
    @Test("finds RSS, Atom and JSON feed links regardless of attribute order, quoting and case; resolves relative hrefs")
    func findsAlternateLinks() {
        let html = """
        <html><head>
        <!-- <link rel="alternate" type="application/rss+xml" href="/commented.xml"> -->
        <LINK REL="Alternate" TYPE="application/RSS+xml" HREF="/rss.xml" title="RSS">
        <link href='atom.xml' type='application/atom+xml' rel='alternate'>
        <link type=application/feed+json rel=alternate href=https://cdn.test/feed.json>
        <link rel="stylesheet" type="text/css" href="/s.css">
        <link rel="alternate" hreflang="de" href="/de/">
        <link rel="alternate" type="application/rss+xml" href="/rss.xml">
        <script>var s = '<link rel="alternate" type="application/rss+xml" href="/script.xml">';</script>
        <link rel="alternate" type="application/rss+xml" href="/comments?a=1&amp;b=2">
        </head><body></body></html>
        """
        let links = FeedDiscovery.feedLinks(inHTML: html, baseURL: URL(string: "https://example.com/blog/post.html")!)
        #expect(links.map(\.absoluteString) == ["https://example.com/rss.xml", "https://example.com/blog/atom.xml",
                                                 "https://cdn.test/feed.json", "https://example.com/comments?a=1&b=2"])
    }

    @Test("honours <base href> and returns nothing for pages without feeds")
    func baseHrefAndEmpty() {
        let html = "<head><base href=\"https://static.test/x/\"><link rel=alternate type=application/atom+xml href=a.xml></head>"
        #expect(FeedDiscovery.feedLinks(inHTML: html, baseURL: URL(string: "https://e.test/")!).map(\.absoluteString) == ["https://static.test/x/a.xml"])
        #expect(FeedDiscovery.feedLinks(inHTML: "<p>no feeds <link", baseURL: URL(string: "https://e.test/")!).isEmpty)
    }
}
