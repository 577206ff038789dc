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
}
