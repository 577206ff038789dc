import Foundation
import Testing
@testable import DiarySDK

@Suite("FeedParser behaviour")
struct FeedParserBehaviourTests {
    func parse(_ xml: String, documentURL: URL? = nil, configuration: FeedParser.Configuration = .init()) throws -> FeedParseResult {
        try FeedParser(configuration: configuration).parse(Data(xml.utf8), documentURL: documentURL)
    }

    func code(of body: () throws -> Void) -> FeedParsingError.Code? {
        do { try body() } catch let error as FeedParsingError { return error.code } catch { return FeedParsingError.Code(rawValue: "other: \(error)") }
        return nil
    }

    @Test("namespaces are matched by URI: a media: prefix bound elsewhere is ignored, any prefix bound to content: is honoured")
    func namespacesMatchedByURI() throws {
        let xml = """
        <rss version="2.0" xmlns:media="http://example.com/not-media" xmlns:zz="http://purl.org/rss/1.0/modules/content/"
             xmlns:m="http://search.yahoo.com/mrss/" xmlns:source="http://source.scripting.com/">
        <channel><title>T</title>
        <item><title>A</title><media:thumbnail url="http://x.test/wrong.jpg"/><m:thumbnail url="http://x.test/right.jpg"/>
        <zz:encoded>&lt;p&gt;full&lt;/p&gt;</zz:encoded><source:link>http://wrong.test/</source:link><link>http://right.test/</link></item>
        </channel></rss>
        """
        let item = try #require(try parse(xml).feed.items.first)
        #expect(item.thumbnails.map(\.url.absoluteString) == ["http://x.test/right.jpg"])
        #expect(item.content == "<p>full</p>")
        #expect(item.contentType == .html)
        #expect(item.link?.absoluteString == "http://right.test/")
    }

    @Test("xml:base is inherited and resolved against the document URL")
    func xmlBaseResolution() throws {
        let xml = """
        <feed xmlns="http://www.w3.org/2005/Atom" xml:base="/blog/">
          <title>T</title><link href="index.html"/>
          <entry xml:base="2024/"><title>E</title><link href="post.html"/><link rel="enclosure" href="../a.mp3" length="12" type="audio/mpeg"/></entry>
          <entry><title>F</title><link href="http://other.test/abs"/></entry>
        </feed>
        """
        let feed = try parse(xml, documentURL: URL(string: "https://example.com/feeds/atom.xml")).feed
        #expect(feed.link?.absoluteString == "https://example.com/blog/index.html")
        #expect(feed.items[0].link?.absoluteString == "https://example.com/blog/2024/post.html")
        #expect(feed.items[0].enclosures.first == FeedEnclosure(url: URL(string: "https://example.com/blog/a.mp3")!, type: "audio/mpeg", length: 12))
        #expect(feed.items[1].link?.absoluteString == "http://other.test/abs")
    }

    @Test("HTML named entities and bare ampersands are repaired and reported")
    func htmlEntityRecovery() throws {
        let xml = "<rss version=\"2.0\"><channel><title>Caf&eacute;&nbsp;Tom & Jerry &copy;</title><item><title>AT&T &#146;s &#X41;</title><link>http://x.test/?a=1&b=2</link></item></channel></rss>"
        let result = try parse(xml)
        #expect(result.feed.title == "Café\u{A0}Tom & Jerry ©")
        #expect(result.feed.items.first?.title == "AT&T ’s A")
        #expect(result.feed.items.first?.link?.absoluteString == "http://x.test/?a=1&b=2")
        #expect(result.wasRepaired)
        #expect(Set(result.diagnostics.map(\.kind)).isSuperset(of: ["htmlEntity", "bareAmpersand"]))
    }

    @Test("a clean document reports no repairs")
    func cleanDocumentHasNoDiagnostics() throws {
        let result = try parse("<rss version=\"2.0\"><channel><title>A &amp; B</title></channel></rss>")
        #expect(result.feed.title == "A & B")
        #expect(result.diagnostics.isEmpty)
        #expect(!result.wasRepaired)
    }

    @Test("the HTML 4 entity table has all 252 entities plus apos is handled")
    func entityTableIsComplete() {
        #expect(FeedHTMLEntities.table.count == 252)
        #expect(FeedHTMLEntities.table["thetasym"] == 977)
        #expect(FeedHTMLEntities.table["euro"] == 8364)
    }

    @Test("an entity bomb is rejected with .entityExpansion")
    func entityBombRejected() {
        let xml = """
        <?xml version="1.0"?>
        <!DOCTYPE rss [
          <!ENTITY lol "lol">
          <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
          <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
        ]>
        <rss version="2.0"><channel><title>&lol2;</title></channel></rss>
        """
        #expect(code { _ = try parse(xml) } == .entityExpansion)
    }

    @Test("simple internal entities are expanded and external ones are never loaded")
    func simpleInternalEntityExpanded() throws {
        let xml = """
        <?xml version="1.0"?>
        <!DOCTYPE rss [ <!ENTITY site "Example &#38; Co"> <!ENTITY ext SYSTEM "file:///etc/passwd"> ]>
        <rss version="2.0"><channel><title>&site; &ext;</title></channel></rss>
        """
        let result = try parse(xml)
        #expect(result.feed.title == "Example & Co &ext;")
    }

    @Test("nesting deeper than maxDepth fails with .tooDeep")
    func depthLimit() {
        let deep = String(repeating: "<x>", count: 40) + String(repeating: "</x>", count: 40)
        let xml = "<rss version=\"2.0\"><channel><title>T</title><item>\(deep)</item></channel></rss>"
        #expect(code { _ = try parse(xml, configuration: .init(maxDepth: 20)) } == .tooDeep)
        #expect(code { _ = try parse(xml, configuration: .init(maxDepth: 64)) } == nil)
    }

    @Test("input larger than maxBytes fails with .tooLarge, for data, files and streams")
    func sizeLimit() async throws {
        let xml = "<rss version=\"2.0\"><channel><title>" + String(repeating: "a", count: 5_000) + "</title></channel></rss>"
        let parser = FeedParser(configuration: .init(maxBytes: 1_000))
        #expect(code { _ = try parser.parse(Data(xml.utf8)) } == .tooLarge)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feed-size-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(code { _ = try parser.parse(contentsOf: file) } == .tooLarge)
        do {
            _ = try await parser.parse(bytes: AsyncBytes(Array(xml.utf8)))
            Issue.record("expected .tooLarge")
        } catch let error as FeedParsingError {
            #expect(error.code == .tooLarge)
        }
    }

    @Test("maxItems stops parsing early, before malformed content later in the document")
    func maxItemsStopsEarly() throws {
        let items = (1...5).map { "<item><title>\($0)</title></item>" }.joined()
        let xml = "<rss version=\"2.0\"><channel><title>T</title>\(items)<item><title>broken</tit></item></channel></rss>"
        #expect(code { _ = try parse(xml) } == nil) // recovered as a whole…
        let result = try parse(xml, configuration: .init(maxItems: 3))
        #expect(result.feed.items.map(\.title) == ["1", "2", "3"])
        #expect(result.diagnostics.contains { $0.kind == "maxItems" })
        #expect(!result.wasRepaired) // …but never reached the broken part
        let atp = try FeedParser(configuration: .init(maxItems: 2)).parse(FeedFixtures.data("real/rsparser__atp.rss"))
        #expect(atp.feed.items.count == 2)
    }

    @Test("maxItems gives the first N items when end tags hide in CDATA and comments, items nest or carry a prefix")
    func maxItemsWithMisleadingEndTags() throws {
        func rss(_ items: String) -> String { "<rss version=\"2.0\"><channel><title>T</title>\(items)</channel></rss>" }
        let cases: [(String, [String?])] = [
            (rss("<item><title>1</title><description><![CDATA[</item></item>]]></description></item><!-- </item> -->"
                 + "<item><title>2</title></item><item><title>3</title></item>"), ["1", "2"]),
            (rss("<item><title>1</title><x><item>nested</item><entry/></x></item><item><title>2</title></item >"
                 + "<item><title>3</title></item>"), ["1", "2"]),
            ("<a:feed xmlns:a=\"http://www.w3.org/2005/Atom\"><a:title>T</a:title><a:entry><a:title>1</a:title></a:entry>"
             + "<a:entry><a:title>2</a:title></a:entry><a:entry><a:title>3</a:title></a:entry></a:feed>", ["1", "2"]),
            (rss("<item><title>1</title></item>"), ["1"]),
        ]
        for (xml, expected) in cases {
            let result = try parse(xml, configuration: .init(maxItems: 2))
            #expect(result.feed.items.map(\.title) == expected, "\(xml)")
            #expect(result.diagnostics.contains { $0.kind == "maxItems" } == (expected.count == 2), "\(xml)")
            #expect(!result.wasRepaired, "\(xml)")
            // Whatever follows the limit's last item is never looked at, even when it breaks the document.
            let broken = try parse(xml + "<item><title>x</tit></channel>", configuration: .init(maxItems: 2))
            if expected.count == 2 { #expect(broken == result, "\(xml)") }
        }
    }

    @Test("a truncated document keeps the items parsed before the cut and says so")
    func truncatedDocumentRecovery() throws {
        let data = try FeedFixtures.data("real/rsparser__atp.rss")
        let cut = data.prefix(data.count / 2)
        let result = try FeedParser().parse(Data(cut))
        #expect(result.feed.items.count >= 10)
        #expect(result.feed.items.allSatisfy { $0.title != nil })
        #expect(result.diagnostics.contains { $0.kind == "malformedXML" && $0.severity == .repaired })
    }

    @Test("an unterminated CDATA section is closed and earlier items survive")
    func unterminatedCDATA() throws {
        let xml = "<rss version=\"2.0\"><channel><title>T</title><item><title>ok</title></item><item><description><![CDATA[<p>half"
        let result = try parse(xml)
        #expect(result.feed.items.first?.title == "ok")
        #expect(result.diagnostics.contains { $0.kind == "unterminatedCDATA" })
        let fixture = try FeedParser().parse(FeedFixtures.data("feedparser/illformed/rss_incomplete_cdata.xml"))
        #expect(fixture.wasRepaired)
    }

    @Test("malformed XML with nothing usable throws .malformedXML with a position")
    func malformedThrowsTypedError() throws {
        do {
            _ = try parse("<rss version=\"2.0\">\n<channel>\n<title>x</titl></channel></rss>")
            Issue.record("expected an error")
        } catch let error as FeedParsingError {
            #expect(error.code == .malformedXML)
            #expect(error.line == 3)
            #expect(error.column != nil)
            #expect(error.underlying != nil)
        }
    }

    @Test("non-feed input is classified: HTML → .notAFeed, unknown XML → .unsupportedFormat, text → .notAFeed")
    func nonFeedsClassified() {
        #expect(code { _ = try parse("<!DOCTYPE html><html><head><title>x</title></head><body></body></html>") } == .notAFeed)
        #expect(code { _ = try parse("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>") } == .unsupportedFormat)
        #expect(code { _ = try parse("hello world") } == .notAFeed)
        #expect(code { _ = try parse("") } == .notAFeed)
        #expect(code { _ = try parse("{\"a\": 1}") } == .unsupportedFormat)
        #expect(code { _ = try FeedParser().parse(contentsOf: URL(fileURLWithPath: "/nonexistent/feed.xml")) } == .io)
    }

    @Test("format is detected past BOM, whitespace, comments and stylesheet instructions")
    func detectionSkipsProlog() throws {
        let prolog = "\u{FEFF}  \n<?xml version=\"1.0\"?>\n<!-- generated -->\n<?xml-stylesheet href=\"s.css\" type=\"text/css\"?>\n"
        #expect(try parse(prolog + "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>A</title></feed>").feed.format == .atom10)
        #expect(try parse(prolog + "<rss version=\"0.91\"><channel><title>R</title></channel></rss>").feed.format == .rss09x)
        #expect(try parse(prolog + "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://my.netscape.com/rdf/simple/0.9/\"><channel><title>N</title></channel></rdf:RDF>").feed.format == .rss090)
        #expect(try parse("<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\"><title>O</title></feed>").feed.format == .atom03)
    }

    @Test("Atom xhtml content is re-serialised from the div's children; text constructs keep their type")
    func atomTextConstructs() throws {
        let xml = """
        <feed xmlns="http://www.w3.org/2005/Atom"><title type="html">A &amp;lt; B</title>
        <entry><title>  Multi
           line   title </title>
        <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Hi <b class="x">there</b> &amp; <br/>you</p></div></content>
        <summary type="text">1 &lt; 2</summary><published>2024-02-29T23:59:60Z</published></entry></feed>
        """
        let feed = try parse(xml).feed
        #expect(feed.title == "A &lt; B")
        let item = try #require(feed.items.first)
        #expect(item.title == "Multi line title")
        #expect(item.content == "<p>Hi <b class=\"x\">there</b> &amp; <br />you</p>")
        #expect(item.contentType == .xhtml)
        #expect(item.summary == "1 < 2")
    }

    @Test("JSON Feed 1.1: authors, attachments, tags, numeric ids and lenient fields")
    func jsonFeed11() throws {
        let json = """
        {"version":"https://jsonfeed.org/version/1.1","title":"J","home_page_url":"https://j.test/","language":"ko",
         "authors":[{"name":"Kim"}],
         "items":[{"id":42,"url":"/p/1","title":"One","content_text":"body","date_published":"2024-05-01T10:00:00+09:00",
                   "tags":["a","b"],"attachments":[{"url":"https://j.test/a.mp3","mime_type":"audio/mpeg","size_in_bytes":1e300}]},
                  {"id":"x","title":7,"content_html":"<p>h</p>"}]}
        """
        let result = try FeedParser().parse(Data(json.utf8), documentURL: URL(string: "https://j.test/feed.json"))
        #expect(result.feed.format == .jsonFeed11)
        #expect(result.feed.authors.first?.name == "Kim")
        #expect(result.feed.language == "ko")
        let first = result.feed.items[0]
        #expect(first.id == "42")
        #expect(first.link?.absoluteString == "https://j.test/p/1")
        #expect(first.published == Date(timeIntervalSince1970: FeedFixtures.epochSeconds(2024, 5, 1, 1, 0, 0)))
        #expect(first.categories == ["a", "b"])
        #expect(first.enclosures.first?.length == nil)
        #expect(first.contentType == .text)
        #expect(result.feed.items[1].title == "7")
        #expect(result.feed.items[1].contentType == .html)
    }

    @Test("stableKey prefers id, then link, then title and date")
    func stableKeyFallbacks() {
        var item = FeedItem(id: "g1", title: "T", link: URL(string: "http://l.test/"))
        #expect(item.stableKey == "id:g1")
        item.id = nil
        #expect(item.stableKey == "link:http://l.test/")
        item.link = nil
        item.published = Date(timeIntervalSince1970: 1_000)
        #expect(item.stableKey == "title:T|1000")
        #expect(FeedItem().stableKey == nil)
    }

    @Test("an unparseable date leaves the field nil and adds a diagnostic without failing the feed")
    func invalidDateIsDiagnosed() throws {
        let result = try parse("<rss version=\"2.0\"><channel><title>T</title><item><title>i</title><pubDate>someday soon</pubDate></item></channel></rss>")
        #expect(result.feed.items.first?.published == nil)
        #expect(result.diagnostics.contains { $0.kind == "invalidDate" && $0.severity == .warning })
        #expect(!result.wasRepaired)
    }

    @Test("the model round-trips through Codable")
    func codableRoundTrip() throws {
        let feed = try FeedParser().parse(FeedFixtures.data("real/rsparser__theomnishow.rss")).feed
        let data = try JSONEncoder().encode(feed)
        #expect(try JSONDecoder().decode(Feed.self, from: data) == feed)
    }

    @Test("RSS enclosures are also rel=enclosure links, in document order among the item's links")
    func rssEnclosuresAreLinksInDocumentOrder() throws {
        let xml = """
        <rss version="2.0"><channel><title>t</title><item><enclosure url="/a.mp3" length="12" type="audio/mpeg"/>
        <link>https://example.com/post</link><enclosure url="https://cdn.example.com/b.jpg" type="image/jpeg"/></item></channel></rss>
        """
        let item = try #require(FeedParser().parse(Data(xml.utf8), documentURL: URL(string: "https://example.com/feed")).feed.items.first)
        #expect(item.links.map(\.rel) == ["enclosure", "alternate", "enclosure"])
        #expect(item.links.first == FeedLink(href: URL(string: "https://example.com/a.mp3")!, rel: "enclosure", type: "audio/mpeg", length: 12))
        #expect(item.enclosures.map(\.url.absoluteString) == ["https://example.com/a.mp3", "https://cdn.example.com/b.jpg"])
        #expect(item.link?.absoluteString == "https://example.com/post")
    }
}

/// A simple AsyncSequence of bytes, yielding in small bursts.
struct AsyncBytes: AsyncSequence, Sendable {
    typealias Element = UInt8
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    struct AsyncIterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        var index = 0
        mutating func next() async throws -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            if index % 4_096 == 0 { await Task.yield() }
            return bytes[index]
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes) }
}
