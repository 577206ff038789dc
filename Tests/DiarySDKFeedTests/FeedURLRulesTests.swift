import DiarySDK
import Foundation
import Testing

@Suite("FeedURLRules: platform feed addresses without network")
struct FeedURLRulesTests {
    static let cases: [(input: String, platform: BlogPlatform, feeds: [String])] = [
        ("https://alice.tistory.com", .tistory, ["https://alice.tistory.com/rss"]),
        ("alice.tistory.com/category/dev/123", .tistory, ["https://alice.tistory.com/rss"]),
        ("https://velog.io/@alice", .velog, ["https://v2.velog.io/rss/alice"]),
        ("velog.io/@alice/some-post-title", .velog, ["https://v2.velog.io/rss/alice"]),
        ("https://v2.velog.io/rss/alice", .velog, ["https://v2.velog.io/rss/alice"]),
        ("https://blog.naver.com/alice_01", .naverBlog, ["https://rss.blog.naver.com/alice_01.xml"]),
        ("m.blog.naver.com/alice_01/223344", .naverBlog, ["https://rss.blog.naver.com/alice_01.xml"]),
        ("https://blog.naver.com/PostList.naver?blogId=alice_01&categoryNo=3", .naverBlog, ["https://rss.blog.naver.com/alice_01.xml"]),
        ("https://rss.blog.naver.com/alice_01.xml", .naverBlog, ["https://rss.blog.naver.com/alice_01.xml"]),
        ("https://medium.com/@alice", .medium, ["https://medium.com/feed/@alice"]),
        ("medium.com/@alice/a-post-1a2b3c", .medium, ["https://medium.com/feed/@alice"]),
        ("https://medium.com/some-publication", .medium, ["https://medium.com/feed/some-publication"]),
        ("https://alice.medium.com/", .medium, ["https://alice.medium.com/feed"]),
        ("https://medium.com/feed/@alice", .medium, ["https://medium.com/feed/@alice"]),
        ("https://brunch.co.kr/@alice", .brunch, []),
        ("https://brunch.co.kr/rss/@@aBc1", .brunch, ["https://brunch.co.kr/rss/@@aBc1"]),
        ("alice.wordpress.com", .wordPress, ["https://alice.wordpress.com/feed/"]),
        ("https://alice.github.io", .gitHubPages, ["https://alice.github.io/feed.xml", "https://alice.github.io/atom.xml"]),
        ("https://alice.github.io/til/", .gitHubPages, ["https://alice.github.io/til/feed.xml", "https://alice.github.io/til/atom.xml"]),
        ("https://alice.blogspot.com/2026/03/post.html", .blogger, ["https://alice.blogspot.com/feeds/posts/default"]),
        ("https://example.com/blog", .other, []),
    ]

    @Test("each platform's address gives its documented feed address", arguments: 0..<cases.count)
    func platformCandidates(_ index: Int) throws {
        let (input, platform, feeds) = Self.cases[index]
        let url = try Validation.webURL(fromUserInput: input, field: "url")
        #expect(BlogPlatform.of(url) == platform, "\(input)")
        #expect(FeedURLRules.candidates(for: url).map(\.absoluteString) == feeds, "\(input)")
    }

    @Test("suggestions use the platform rule, else the typed address and common feed paths; nothing for non-addresses")
    func suggestions() {
        #expect(FeedURLRules.suggestions(forUserInput: "alice.tistory.com").map(\.absoluteString) == ["https://alice.tistory.com/rss"])
        let other = FeedURLRules.suggestions(forUserInput: "example.com/blog").map(\.absoluteString)
        #expect(other.first == "https://example.com/blog")
        #expect(other.contains("https://example.com/blog/feed"))
        #expect(other.contains("https://example.com/feed.xml"))
        #expect(other.contains("https://example.com/feeds/posts/default"))
        #expect(Set(other).count == other.count)
        #expect(FeedURLRules.suggestions(forUserInput: "").isEmpty)
        #expect(FeedURLRules.suggestions(forUserInput: "two words").isEmpty)
        #expect(FeedURLRules.suggestions(forUserInput: "localhost").isEmpty)
        #expect(FeedURLRules.suggestions(forUserInput: "brunch.co.kr/@alice").isEmpty)
    }

    @Test("common candidates keep the port, drop a file name, and try the typed path before the root")
    func commonCandidates() {
        let urls = FeedURLRules.commonCandidates(for: URL(string: "http://127.0.0.1:8080/blog/index.html")!).map(\.absoluteString)
        #expect(urls.prefix(2) == ["http://127.0.0.1:8080/blog/feed", "http://127.0.0.1:8080/blog/rss"])
        #expect(urls.contains("http://127.0.0.1:8080/atom.xml"))
    }

    @Test("velog and Naver feeds map back to the blog's page")
    func siteURLs() {
        #expect(FeedURLRules.siteURL(forFeed: URL(string: "https://v2.velog.io/rss/alice")!)?.absoluteString == "https://velog.io/@alice")
        #expect(FeedURLRules.siteURL(forFeed: URL(string: "https://rss.blog.naver.com/alice_01.xml")!)?.absoluteString == "https://blog.naver.com/alice_01")
        #expect(FeedURLRules.siteURL(forFeed: URL(string: "https://example.com/feed")!) == nil)
    }
}
