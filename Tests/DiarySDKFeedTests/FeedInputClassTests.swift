import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import DiarySDK

/// Classes of input that a wider corpus of real and feedparser-style documents showed were handled wrongly.
@Suite("Feed input classes")
struct FeedInputClassTests {
    func parse(_ xml: String, documentURL: URL? = nil) throws -> FeedParseResult {
        try FeedParser().parse(Data(xml.utf8), documentURL: documentURL)
    }

    /// Whether `fragment` parses as XML on its own, wrapped in an XHTML `div` (the way a reader embeds it).
    func parsesStandalone(_ fragment: String) -> Bool {
        let parser = XMLParser(data: Data("<div xmlns=\"http://www.w3.org/1999/xhtml\">\(fragment)</div>".utf8))
        parser.shouldProcessNamespaces = true
        return parser.parse() && parser.parserError == nil
    }

    // MARK: - Namespace declarations outside re-serialised markup

    @Test("XHTML content using prefixes declared on the feed, the entry or the content element carries the declarations",
          arguments: ["feed", "entry", "content"])
    func outerPrefixDeclarations(_ level: String) throws {
        let declarations = "xmlns:svg=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" xmlns:m=\"http://www.w3.org/1998/Math/MathML\""
        let xml = """
        <feed xmlns="http://www.w3.org/2005/Atom" \(level == "feed" ? declarations : "")><title>t</title>
        <entry \(level == "entry" ? declarations : "")><title>e</title>
        <content type="xhtml" \(level == "content" ? declarations : "")><div xmlns="http://www.w3.org/1999/xhtml"><p>Circle:</p>\
        <svg:svg width="10"><svg:a xlink:href="http://example.com/"><svg:circle r="4"/></svg:a></svg:svg>\
        <m:math><m:mi>x</m:mi></m:math><p xlink:title="t">end</p></div></content></entry></feed>
        """
        let content = try #require(try parse(xml).feed.items.first?.content)
        #expect(content == """
        <p>Circle:</p><svg:svg width="10" xmlns:svg="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\
        <svg:a xlink:href="http://example.com/"><svg:circle r="4"></svg:circle></svg:a></svg:svg>\
        <m:math xmlns:m="http://www.w3.org/1998/Math/MathML"><m:mi>x</m:mi></m:math>\
        <p xlink:title="t" xmlns:xlink="http://www.w3.org/1999/xlink">end</p>
        """)
        #expect(parsesStandalone(content))
    }

    @Test("a declaration made inside the fragment is not repeated, and one on an XHTML element is kept for its children")
    func innerDeclarations() throws {
        let xml = """
        <rss version="2.0" xmlns:svg="http://www.w3.org/2000/svg"><channel><title>t</title><item><title>i</title>
        <description><svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:g/></svg:svg>\
        <div xmlns="http://www.w3.org/1999/xhtml" xmlns:e="urn:example"><e:x/></div></description></item></channel></rss>
        """
        let summary = try #require(try parse(xml).feed.items.first?.summary)
        #expect(summary == "<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"><svg:g></svg:g></svg:svg><div xmlns:e=\"urn:example\"><e:x></e:x></div>")
        #expect(parsesStandalone(summary))
    }

    @Test("the real Atom feeds' XHTML and markup content re-parses on its own")
    func realFeedMarkupParses() throws {
        var checked = 0
        for file in try RealFeedTests.realFiles() where !file.lastPathComponent.hasSuffix(".json") {
            let feed = try FeedParser().parse(contentsOf: file).feed
            for item in feed.items where item.contentType == .xhtml {
                let content = try #require(item.content)
                #expect(parsesStandalone(content), "\(file.lastPathComponent): \(content.prefix(200))")
                checked += 1
            }
        }
        #expect(checked >= 40, "expertopinionent.atom alone has 43 XHTML entries")
    }

    // MARK: - Empty relative references

    @Test("the real Atom feed's href=\"\" item links resolve to its xml:base instead of being dropped")
    func emptyHrefInRealFeed() throws {
        let result = try RealFeedTests.parse("rsparser__OneFootTsunami.atom")
        #expect(result.feed.items.count == 25)
        #expect(result.feed.items.allSatisfy { $0.link != nil })
        let resolvedToBase = result.feed.items.filter { $0.link?.absoluteString == "http://onefoottsunami.com/wp-atom.php" }
        #expect(resolvedToBase.count == 3)
    }

    @Test("an empty or blank href resolves to the base URL: xml:base, else the document URL", arguments: ["", " ", "\n\t"])
    func emptyHref(_ value: String) throws {
        let xml = """
        <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link href="\(value)"/>
        <entry xml:base="http://base.test/posts/1"><title>e</title><link rel="alternate" href="\(value)"/>
        <content type="html">&lt;a href="\(value)"&gt;here&lt;/a&gt; &lt;img src=""/&gt;</content></entry>
        <entry><title>f</title><link href="\(value)"/><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="\(value)">x</a></div></content></entry></feed>
        """
        let feed = try parse(xml, documentURL: URL(string: "http://doc.test/feed.atom")).feed
        #expect(feed.link?.absoluteString == "http://doc.test/feed.atom")
        #expect(feed.items[0].link?.absoluteString == "http://base.test/posts/1")
        #expect(feed.items[0].content == "<a href=\"http://base.test/posts/1\">here</a> <img src=\"\"/>")
        #expect(feed.items[1].link?.absoluteString == "http://doc.test/feed.atom")
        #expect(feed.items[1].content == "<a href=\"http://doc.test/feed.atom\">x</a>")
        // Without any base there is nothing to resolve against.
        #expect(try parse(xml).feed.link == nil)
    }

    @Test("an atom:link inside RSS with href=\"\" resolves to the channel's base")
    func emptyHrefInRSS() throws {
        let xml = """
        <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title>
        <atom:link rel="self" href=""/><item><title>i</title><atom:link rel="alternate" href=""/></item></channel></rss>
        """
        let feed = try parse(xml, documentURL: URL(string: "https://doc.test/rss")).feed
        #expect(feed.feedURL?.absoluteString == "https://doc.test/rss")
        #expect(feed.items.first?.link?.absoluteString == "https://doc.test/rss")
    }

    // MARK: - Atom 1.0 link as text

    @Test("an Atom 1.0 and 0.3 link whose URL is its text is accepted; text with spaces is not a URL in 1.0",
          arguments: ["http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#"])
    func atomLinkText(_ namespace: String) throws {
        let xml = """
        <feed xmlns="\(namespace)" xml:base="http://site.test/"><title>t</title><link rel="alternate">http://site.test/home</link>
        <entry><title>e</title><link rel="alternate" type="text/html">
          posts/1.html
        </link><link rel="related">not a url</link></entry></feed>
        """
        let feed = try parse(xml).feed
        #expect(feed.link?.absoluteString == "http://site.test/home")
        let item = try #require(feed.items.first)
        #expect(item.link?.absoluteString == "http://site.test/posts/1.html")
        if namespace.hasSuffix("2005/Atom") {
            #expect(item.links.map(\.rel) == ["alternate"])
        }
    }

    // MARK: - RSS body, tags and keywords

    @Test("an RSS item's unnamespaced <body> and undeclared xhtml:body are content", arguments: [
        ("<body><p>Body <b>markup</b></p></body>", "<p>Body <b>markup</b></p>"),
        ("<body>&lt;p&gt;escaped&lt;/p&gt;</body>", "<p>escaped</p>"),
        ("<body><![CDATA[<p>cdata</p>]]></body>", "<p>cdata</p>"),
    ])
    func rssBody(_ element: String, _ expected: String) throws {
        let xml = "<rss version=\"2.0\"><channel><title>t</title><item><title>i</title><description>d</description>\(element)</item></channel></rss>"
        let result = try parse(xml)
        let item = try #require(result.feed.items.first)
        #expect(item.content == expected)
        #expect(item.contentType == .html)
        #expect(item.summary == "d")
        #expect(result.diagnostics.isEmpty)
    }

    @Test("the feedparser xhtml:body documents give content")
    func feedparserBody() throws {
        for name in ["item_xhtml_body", "item_xhtml_body_mode"] {
            let item = try #require(try FeedParser().parse(FeedFixtures.data("feedparser/wellformed/rss/\(name).xml")).feed.items.first)
            #expect(item.content?.contains("Example content") == true, "\(name)")
        }
    }

    @Test("<tags> and itunes:keywords comma lists are categories, on items and on the channel")
    func tagsAndKeywords() throws {
        let xml = """
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>t</title>
        <itunes:keywords>swift, ios ,, server side </itunes:keywords>
        <item><title>i</title><category>first</category><tags>one, two,three</tags><itunes:keywords>talk,  news</itunes:keywords></item>
        </channel></rss>
        """
        let feed = try parse(xml).feed
        #expect(feed.categories.map(\.term) == ["swift", "ios", "server side"])
        #expect(feed.categories.allSatisfy { $0.scheme == "http://www.itunes.com/" })
        let item = try #require(feed.items.first)
        #expect(item.categories == ["first", "one", "two", "three", "talk", "news"])
        #expect(item.categoryDetails.map(\.scheme) == [nil, nil, nil, nil, "http://www.itunes.com/", "http://www.itunes.com/"])
    }

    // MARK: - C1 control characters

    @Test("C1 control characters in UTF-8 and ISO-8859-1 text and in CDATA are read as windows-1252", arguments: ["UTF-8", "ISO-8859-1"])
    func c1Characters(_ encoding: String) throws {
        // U+00A0 (a no-break space, C2 A0 in UTF-8, like the C1 characters led by C2) is no C1 character and stays.
        let text = "It\u{92}s\u{A0}\u{93}quoted\u{94} \u{85} \u{80}5 \u{8D}"
        let xml = "<?xml version=\"1.0\" encoding=\"\(encoding)\"?><rss version=\"2.0\"><channel><title>\(text)</title>"
            + "<item><title>i</title><description><![CDATA[<p>\(text)</p>]]></description></item></channel></rss>"
        let data: Data
        if encoding == "UTF-8" {
            data = Data(xml.utf8)
        } else {
            data = Data(xml.unicodeScalars.map { UInt8($0.value) })
        }
        let feed = try FeedParser().parse(data).feed
        // 0x8D is undefined in windows-1252: U+008D stays in UTF-8; the ISO-8859-1 decoder (read as windows-1252, as
        // browsers do) has always made the byte U+FFFD.
        let undefined = encoding == "UTF-8" ? "\u{8D}" : "\u{FFFD}"
        #expect(feed.title == "It’s\u{A0}“quoted” … €5 \(undefined)")
        #expect(feed.items.first?.summary == "<p>It’s\u{A0}“quoted” … €5 \(undefined)</p>")
    }

    @Test("C1 numeric references in escaped HTML are read as windows-1252", arguments: ["&#146;", "&#0146;", "&#x92;", "&#X92;"])
    func c1References(_ reference: String) throws {
        let escaped = reference.replacingOccurrences(of: "&", with: "&amp;")
        let xml = """
        <rss version="2.0"><channel><title>t</title><item><title>It\(escaped)s</title>
        <description>&lt;p&gt;Don\(escaped)t &amp;#141; &amp;#8217; &amp;#x2019;&lt;/p&gt;</description>
        <content:encoded xmlns:content="http://purl.org/rss/1.0/modules/content/"><![CDATA[<p>CDATA\(reference)s</p>]]></content:encoded>
        </item></channel></rss>
        """
        let item = try #require(try parse(xml).feed.items.first)
        #expect(item.title == "It’s")
        #expect(item.summary == "<p>Don’t &#141; &#8217; &#x2019;</p>")
        #expect(item.content == "<p>CDATA’s</p>")
    }

    // MARK: - JSON Feed errors

    @Test("a JSON Feed that is not well-formed JSON fails with .malformedJSON", arguments: [
        "{\"version\": \"https://jsonfeed.org/version/1.1\", \"items\": [",
        "{\"version\": \"https://jsonfeed.org/version/1\" \"title\": \"x\"}",
        "{ not json }",
    ])
    func malformedJSON(_ json: String) {
        do {
            _ = try FeedParser().parse(Data(json.utf8))
            Issue.record("parsed")
        } catch let error as FeedParsingError {
            #expect(error.code == .malformedJSON)
            #expect(error.message.contains("JSON"))
        } catch {
            Issue.record("untyped \(error)")
        }
    }

    @Test("the real JSON Feeds cut short fail with .malformedJSON, never .malformedXML")
    func truncatedRealJSON() throws {
        for file in try RealFeedTests.realFiles() where file.pathExtension == "json" {
            let data = try Data(contentsOf: file)
            for k in 1...4 {
                do {
                    _ = try FeedParser().parse(data.prefix(data.count * k / 5))
                    Issue.record("\(file.lastPathComponent) cut \(k)/5 parsed")
                } catch let error as FeedParsingError {
                    #expect(error.code == .malformedJSON, "\(file.lastPathComponent)")
                }
            }
        }
    }
}
