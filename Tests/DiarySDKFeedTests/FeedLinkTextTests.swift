import Foundation
import Testing
@testable import DiarySDK
import DiarySDKConformance

/// Links are kept as their absolute strings and become `URL`s on access: the strings must be what `URL` resolution
/// gave, and the Codable format must be the one the stored `URL`s had.
@Suite("Links kept as text")
struct FeedLinkTextTests {
    /// The shape `FeedLink` had with a stored `URL` and a synthesized conformance.
    struct StoredURLLink: Codable, Equatable {
        var href: URL
        var rel: String
        var type: String?
        var title: String?
        var length: Int64?
    }

    @Test("the plain absolute http(s) shortcut gives what resolving through URL gives, with and without a base")
    func shortcutEqualsURLResolution() throws {
        let prefixes = ["http://", "https://", "https://example.com", "http://a.b-c.d:8080", "https://h", "HTTP://", "http:/",
                        "ftp://", "https://[::1]", "https://user@host", "https://-x.org", "https://x.org:", "", "/", "//host",
                        " https://example.com", "https://ex ample.com"]
        let pieces = ["/", "/", "a", "Z9", ".", "..", "/./", "/../", "/.", "/..", "%", "%2F", "%g1", "%4", "#", "##", "?", "?q=1&r=2",
                      ":", "@", "~", "_", "-", "'", "(", ")", "*", "+", ",", ";", "=", "!", "$", " ", "[", "]", "\\", "\"", "<",
                      "é", "日本", "|", "^", "`", "{", "}", "\u{7F}", "\t", ".hidden", "..x", "/.well-known/", "?a=/./b", "#/../x"]
        let bases: [URL?] = [nil, URL(string: "https://example.org/dir/page.html?x=1")!, URL(string: "http://other.example:81/a/b/")!]
        var generator = SeededRandomGenerator(seed: 15)
        var shortcuts = 0
        var checked = 0
        for _ in 0..<20_000 {
            var string = prefixes.randomElement(using: &generator)!
            let count = Int.random(in: 0...6, using: &generator)
            for _ in 0..<count { string += pieces.randomElement(using: &generator)! }
            let plain = FeedURLText.isPlainAbsoluteHTTP(string)
            if plain {
                shortcuts += 1
                #expect(URL(string: string)?.absoluteString == string, "\(string)")
            }
            for base in bases {
                let expected = FeedURLResolver.resolve(string, against: base)?.absoluteString
                #expect(FeedURLResolver.resolveText(string, against: base) == expected, "\(string) against \(base?.absoluteString ?? "no base")")
                checked += 1
            }
        }
        // Both sides of the shortcut were exercised.
        #expect(shortcuts > 500)
        #expect(shortcuts < 18_000)
        #expect(checked == 60_000)
    }

    @Test("every link of the fixture corpus reads back as the URL resolution gave, and links, guids and items agree")
    func corpusLinksParse() throws {
        for file in try RealFeedTests.realFiles() {
            let feed = try FeedParser().parse(Data(contentsOf: file)).feed
            for item in feed.items {
                if let text = item.linkText { #expect(item.link?.absoluteString == text, "\(file.lastPathComponent): \(text)") }
                for link in item.links { #expect(link.href.absoluteString == link.hrefText, "\(file.lastPathComponent): \(link.hrefText)") }
            }
        }
    }

    @Test("FeedLink encodes and decodes exactly as it did with a stored URL, in JSON and property lists")
    func linkCodableFormatIsUnchanged() throws {
        let urls = ["https://example.com/posts/1?a=1&b=2#frag", "http://例え.jp/パス", "https://example.com/a%20b", "mailto:a@b.example",
                    "file:///tmp/x", "https://example.com"]
        // Sorted keys: the order of an unsorted keyed container is not fixed from one encoding to the next.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for string in urls {
            guard let url = URL(string: string) else { continue }
            let legacy = StoredURLLink(href: url, rel: "enclosure", type: "audio/mpeg", title: nil, length: 42)
            let link = FeedLink(href: url, rel: "enclosure", type: "audio/mpeg", length: 42)
            let json = try encoder.encode(link)
            #expect(json == (try encoder.encode(legacy)), "\(string)")
            #expect(try JSONDecoder().decode(FeedLink.self, from: json) == link)
            #expect(try JSONDecoder().decode(StoredURLLink.self, from: json) == legacy)
            let plist = try PropertyListEncoder().encode([link])
            #expect(plist == (try PropertyListEncoder().encode([legacy])), "\(string)")
            #expect(try PropertyListDecoder().decode([FeedLink].self, from: plist) == [link])
        }
        // A `href` that is not a URL is refused as it was.
        let broken = Data(#"{"href":"","rel":"alternate"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FeedLink.self, from: broken) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StoredURLLink.self, from: broken) }
    }

    @Test("an item's link is set and read as a URL, compared by its absolute string, and encoded where it was")
    func itemLinkReadsBack() throws {
        var item = FeedItem(id: "1", title: "t", link: URL(string: "https://example.com/p/1"))
        #expect(item.link == URL(string: "https://example.com/p/1"))
        #expect(item.stableKey == "id:1")
        item.link = URL(string: "page/2", relativeTo: URL(string: "https://example.com/p/")!)
        #expect(item.link?.absoluteString == "https://example.com/p/page/2")
        #expect(item == FeedItem(id: "1", title: "t", link: URL(string: "https://example.com/p/page/2")))
        item.link = nil
        #expect(item.link == nil)
        item.link = URL(string: "https://example.com/q")
        item.links = [FeedLink(href: item.link!)]
        let json = try JSONEncoder().encode(item)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["link"] as? String == "https://example.com/q")
        #expect((object["links"] as? [[String: Any]])?.first?["href"] as? String == "https://example.com/q")
        #expect(try JSONDecoder().decode(FeedItem.self, from: json) == item)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let keys = try #require(try JSONSerialization.jsonObject(with: encoder.encode(FeedItem())) as? [String: Any]).keys.sorted()
        #expect(keys == ["authors", "categories", "categoryDetails", "enclosures", "links", "media", "thumbnails"])
    }
}

/// An item's category terms are the terms of its detailed categories, not a second stored array.
@Suite("Categories from their details")
struct FeedCategoryTermsTests {
    @Test("terms follow the details; setting terms keeps the details whose term is unchanged")
    func termsFollowDetails() {
        var item = FeedItem()
        item.categoryDetails = [FeedCategory(term: "swift", scheme: "s"), FeedCategory(term: "til", label: "Today")]
        #expect(item.categories == ["swift", "til"])
        item.categories.append("ios")
        #expect(item.categoryDetails == [FeedCategory(term: "swift", scheme: "s"), FeedCategory(term: "til", label: "Today"),
                                         FeedCategory(term: "ios")])
        item.categories[0] = "rust"
        #expect(item.categoryDetails.first == FeedCategory(term: "rust"))
        #expect(item.categoryDetails[1] == FeedCategory(term: "til", label: "Today"))
        item.categories = []
        #expect(item.categoryDetails.isEmpty)
    }

    @Test("both keys are encoded as before; decoding lets the terms decide when the two disagree")
    func codableKeepsBothKeys() throws {
        var item = FeedItem()
        item.categoryDetails = [FeedCategory(term: "a", scheme: "x"), FeedCategory(term: "b")]
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(item)) as? [String: Any])
        #expect(object["categories"] as? [String] == ["a", "b"])
        #expect((object["categoryDetails"] as? [[String: Any]])?.count == 2)
        #expect(try JSONDecoder().decode(FeedItem.self, from: JSONEncoder().encode(item)) == item)
        let mismatched = Data(#"{"links":[],"authors":[],"categories":["a","c"],"categoryDetails":[{"term":"a","scheme":"x"},{"term":"b"}],"enclosures":[],"media":[],"thumbnails":[]}"#.utf8)
        let decoded = try JSONDecoder().decode(FeedItem.self, from: mismatched)
        #expect(decoded.categories == ["a", "c"])
        #expect(decoded.categoryDetails == [FeedCategory(term: "a", scheme: "x"), FeedCategory(term: "c")])
    }
}
