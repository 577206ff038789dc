import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import DiarySDK
import DiarySDKConformance

/// The shortcuts of the parse pipeline — the repair pass handing back clean input untouched, plain UTF-8 skipping
/// transcoding, the flat element tree — must give exactly what the slow paths give.
@Suite("Parser fast paths")
struct FeedFastPathTests {
    /// Every fixture document, decoded to UTF-8 as the parser does before the repair pass.
    static func decodedDocuments() throws -> [(name: String, bytes: [UInt8])] {
        let dir = try FeedFixtures.directory()
        var documents: [(String, [UInt8])] = []
        let manifest = try FeedFixtures.json("manifest.json")
        for entry in manifest["entries"] as? [[String: Any]] ?? [] {
            guard let path = entry["path"] as? String else { continue }
            let headers = entry["http_headers"] as? [String: String] ?? [:]
            guard let decoded = try? FeedEncoding.decode(Data(contentsOf: dir.appendingPathComponent(path)), httpCharset: headers["Content-Type"])
            else { continue }
            documents.append((path, decoded.bytes))
        }
        for file in try RealFeedTests.realFiles() {
            documents.append((file.lastPathComponent, try FeedEncoding.decode(Data(contentsOf: file), httpCharset: nil).bytes))
        }
        return documents
    }

    @Test("the repair pass returns a document that needs nothing untouched, without copying it")
    func cleanDocumentsAreNotCopied() throws {
        var clean = 0
        for (name, bytes) in try Self.decodedDocuments() {
            guard let repaired = try? FeedMarkupRepair.repair(bytes) else { continue }
            let sameStorage = bytes.withUnsafeBufferPointer { a in repaired.bytes.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
            if sameStorage {
                clean += 1
                #expect(repaired.diagnostics.isEmpty, "\(name): diagnostics without a change")
            } else {
                // Copied only when something changed (a repair, the DOCTYPE, or a silent `&#X41;`/`&#150;` rewrite).
                #expect(repaired.bytes != bytes, "\(name): copied without a change")
            }
        }
        #expect(clean > 300)
    }

    @Test("a repair anywhere in a document leaves the rest byte for byte as the fast path would")
    func repairPathEqualsFastPath() throws {
        for file in try RealFeedTests.realFiles() where !file.lastPathComponent.hasSuffix(".json") {
            let data = try Data(contentsOf: file)
            let fast = try FeedParser().parse(data)
            // A control character after the root element forces the repair path; removing it gives back the input.
            let repaired = try FeedParser().parse(data + Data([0x01]))
            #expect(repaired.feed == fast.feed, "\(file.lastPathComponent)")
            #expect(repaired.diagnostics.filter { $0.kind != "controlCharacter" } == fast.diagnostics, "\(file.lastPathComponent)")
            #expect(repaired.diagnostics.contains { $0.kind == "controlCharacter" && $0.severity == .repaired })
            #expect(repaired.encoding == fast.encoding)
        }
    }

    @Test("repairs are placed exactly and counted with the line of their first occurrence")
    func repairsAreExact() throws {
        let input = Array("<rss>\n<a>x &nbsp; y & z</a>\n\u{1}<b>&#150;&#0;&amp;&lt;&gt;&quot;&apos;&#X41;&#65</b><!-- & --><![CDATA[ & < ]]>\n<?xml version=\"1.0\"?>".utf8)
        let result = try FeedMarkupRepair.repair(input)
        let expected = "<rss>\n<a>x &#160; y &amp; z</a>\n<b>&#8211;&#65533;&amp;&lt;&gt;&quot;&apos;&#65;&#65;</b><!-- & --><![CDATA[ & < ]]>\n"
        #expect(String(decoding: result.bytes, as: UTF8.self) == expected)
        let lines = Dictionary(result.diagnostics.map { ($0.kind, $0.line) }, uniquingKeysWith: { first, _ in first })
        #expect(lines["htmlEntity"] == 2)
        #expect(lines["bareAmpersand"] == 2)
        #expect(lines["controlCharacter"] == 3)
        #expect(lines["invalidCharacterReference"] == 3)
        #expect(lines["misplacedDeclaration"] == 4)
        #expect(result.diagnostics.first { $0.kind == "bareAmpersand" }?.message.contains("(2×") == true)
    }

    @Test("long runs of plain text around every kind of special byte are scanned correctly")
    func plainRunsAtEveryAlignment() throws {
        for padding in 0..<17 {
            for special in ["&", "<!--c-->", "\u{2}", "&amp;", "<x/>", "\t\n\r"] {
                let text = String(repeating: "p", count: padding) + special + String(repeating: "q", count: 17 - padding)
                let input = Array("<r>\(text)</r>".utf8)
                let result = try FeedMarkupRepair.repair(input)
                var expected = text
                if special == "&" { expected = expected.replacingOccurrences(of: "&", with: "&amp;") }
                if special == "\u{2}" { expected = expected.replacingOccurrences(of: "\u{2}", with: "") }
                #expect(String(decoding: result.bytes, as: UTF8.self) == "<r>\(expected)</r>", "padding \(padding), \(special.debugDescription)")
            }
        }
    }

    @Test("interned element names read back as written through the name table's growth, and the RSS mapper matches them case-insensitively as before")
    func internedElementNames() throws {
        // 3,000 distinct names (the table grows from 64 slots many times) beside names that differ only in case, and
        // `K` beside the Kelvin sign U+212A, which `==` takes as equal (canonically equivalent) but which are two names.
        var xml = "<rss version=\"2.0\"><channel><title>T</title><K/><\u{212A}/><K/><x\u{212A}/><xK/><x\u{212A}/>"
        var written = ["rss", "channel", "title", "K", "\u{212A}", "K", "x\u{212A}", "xK", "x\u{212A}"]
        for i in 0..<3_000 {
            xml += "<item><TITLE>Item \(i)</TITLE><PubDate>Tue, 01 Mar 2026 10:00:00 +0000</PubDate><n\(i)x/><Link>https://example.com/\(i)</Link><link>x</link></item>"
            written += ["item", "TITLE", "PubDate", "n\(i)x", "Link", "link"]
        }
        xml += "</channel></rss>"
        let parser = XMLParser(data: Data(xml.utf8))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        let builder = FeedXMLTreeBuilder(documentURL: nil, maxDepth: 64, maxItems: nil)
        parser.delegate = builder
        #expect(parser.parse())
        parser.delegate = nil
        let tree = try #require(builder.finish())
        let read = tree.elements.indices.map { FeedXMLNode(tree: tree, index: $0).localName }
        #expect(read.map { Array($0.utf8) } == written.map { Array($0.utf8) }, "every name exactly as written")
        #expect(tree.names.count == 3_000 + 12, "each distinct name once")
        #expect(Set(tree.names.map { Array($0.utf8) }).count == tree.names.count, "no name twice, byte for byte")
        #expect(tree.nameKinds == tree.names.map { FeedXMLName(localName: $0) })
        #expect(FeedXMLName(localName: "PubDate") == .pubdate && FeedXMLName(localName: "TITLE") == .title)
        #expect(FeedXMLName(localName: "n12x") == .other && FeedXMLName(localName: "item") == .other)

        let feed = try FeedParser().parse(Data(xml.utf8)).feed
        #expect(feed.items.count == 3_000)
        #expect(feed.items[2_999].title == "Item 2999")
        #expect(feed.items[2_999].link == URL(string: "https://example.com/2999"), "the first link element, whatever its case")
        #expect(feed.items[0].published == Date(timeIntervalSince1970: 1_772_359_200))
    }

    @Test("the in-place UTF-8 check accepts and rejects exactly what Foundation's decoder does")
    func utf8ValidationMatchesFoundation() {
        var rng = SeededRandomGenerator(seed: 0x0F8)
        let pieces: [[UInt8]] = [[0x41], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xED, 0x9F, 0xBF], [0xEF, 0xBF, 0xBD],
                                 [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                 [0xF5, 0x80, 0x80, 0x80], [0x80], [0xBF], [0xFE], [0xFF], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x00]]
        for round in 0..<4_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<24, using: &rng) {
                if round % 3 == 0 {
                    bytes.append(UInt8.random(in: 0...255, using: &rng))
                } else {
                    bytes += pieces[Int.random(in: 0..<(round % 2 == 0 ? 6 : pieces.count), using: &rng)]
                    if Bool.random(using: &rng) { bytes += Array("plain ascii".utf8) }
                }
            }
            let expected = String(data: Data(bytes), encoding: .utf8) != nil
            let actual = bytes.withUnsafeBufferPointer { FeedEncoding.isValidUTF8($0) }
            #expect(actual == expected, "\(bytes.map { String($0, radix: 16) })")
        }
    }

    @Test("the declared encoding is read from the bytes as a string search over the declaration finds it, however it ends")
    func declaredEncodingFastPath() {
        let declarations = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?xml version='1.0' encoding='iso-8859-1'?>",
                            "<?xml version=\"1.0\" encoding = \"euc-kr\" standalone=\"yes\"?>", "<?xml version=\"1.0\"?>",
                            "<?xml encoding=\"\"?>", "<?xml version=\"1.0\" encoding=\"windows-1252", "<?xml version=\"1.0\" encoding\r\n=\"utf-8\"?>",
                            "<?xml version=\"1.0\" encoding=\n\t'koi8-r'?>", "<?xml version=\"1.0\" encoding=utf-8?>", "<?xml?>",
                            "<?xml version=\"1.0\" encoding=\"caf\u{E9}\"?>", "<?xml version=\"1.0\" encoding=\"ks_c_5601-1987\">",
                            "<?xml version=\"1.0\" encoding=\"a>b\"?>", "\n <?xml version=\"1.0\" encoding=\"big5\""]
        for declaration in declarations {
            for tail in ["<rss/>", "", "?>", ">", "\u{D1}"] {
                let text = declaration + tail
                let bytes = Array(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
                #expect(FeedEncoding.declaredEncoding(bytes[...]) == Self.referenceDeclaredEncoding(text), "\(text.debugDescription)")
            }
        }
    }

    /// The declaration rule of ``FeedXMLDeclaration`` as string searches over Latin-1 text, as the reference.
    static func referenceDeclaredEncoding(_ text: String) -> String? {
        let scalars = Array(text.unicodeScalars.drop { " \t\n\r".unicodeScalars.contains($0) })
        let string = String(String.UnicodeScalarView(scalars))
        guard string.hasPrefix("<?xml"), scalars.count > 5, " \t\n\r".unicodeScalars.contains(scalars[5]) else { return nil }
        let afterName = string.index(string.startIndex, offsetBy: 5)
        let limit = string[afterName...].firstIndex(of: "<") ?? string.endIndex
        let content: Substring
        if let close = string.range(of: "?>", range: afterName..<limit) {
            content = string[afterName..<close.lowerBound]
        } else if let angle = string[afterName..<limit].lastIndex(of: ">") {
            content = string[afterName..<angle]
        } else {
            content = string[afterName..<limit]
        }
        guard let key = content.range(of: "encoding") else { return nil }
        var rest = Substring.UnicodeScalarView(content.unicodeScalars[key.upperBound...].drop { " \t\n\r=".unicodeScalars.contains($0) })
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        let value = rest.prefix { $0 != quote }
        return value.isEmpty ? nil : String(String.UnicodeScalarView(value))
    }

    /// The HTML URL rewriter as it was before it scanned in place (byte-by-byte copy, `String` keys), as the reference.
    static func referenceResolve(_ html: String, against base: URL) -> String {
        guard html.utf8.contains(UInt8(ascii: "=")) else { return html }
        let b = Array(html.utf8)
        var out: [UInt8] = []
        var i = 0
        let n = b.count
        var changed = false
        let isSpace = FeedHTMLURLRewriter.isSpace
        while i < n {
            guard b[i] == UInt8(ascii: "<"), i + 1 < n, (b[i + 1] | 0x20) >= 0x61, (b[i + 1] | 0x20) <= 0x7A else {
                out.append(b[i])
                i += 1
                continue
            }
            while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { out.append(b[i]); i += 1 }
            while i < n, b[i] != UInt8(ascii: ">") {
                if isSpace(b[i]) || b[i] == UInt8(ascii: "/") { out.append(b[i]); i += 1; continue }
                let keyStart = i
                while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">") { i += 1 }
                let key = String(decoding: b[keyStart..<i], as: UTF8.self).lowercased()
                out.append(contentsOf: b[keyStart..<i])
                while i < n, isSpace(b[i]) { out.append(b[i]); i += 1 }
                guard i < n, b[i] == UInt8(ascii: "=") else { continue }
                out.append(b[i])
                i += 1
                while i < n, isSpace(b[i]) { out.append(b[i]); i += 1 }
                var quote: UInt8 = 0
                if i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                    quote = b[i]
                    out.append(quote)
                    i += 1
                }
                let valueStart = i
                if quote != 0 {
                    while i < n, b[i] != quote { i += 1 }
                } else {
                    while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { i += 1 }
                }
                let value = String(decoding: b[valueStart..<i], as: UTF8.self)
                if FeedHTMLURLRewriter.urlAttributes.contains(key), let resolved = referenceAbsolute(value, base) {
                    out.append(contentsOf: Array(resolved.utf8))
                    changed = true
                } else {
                    out.append(contentsOf: b[valueStart..<i])
                }
                if quote != 0, i < n { out.append(quote); i += 1 }
            }
            if i < n { out.append(b[i]); i += 1 }
        }
        return changed ? String(decoding: out, as: UTF8.self) : html
    }

    static func referenceAbsolute(_ value: String, _ base: URL) -> String? {
        let trimmed = FeedText.trim(value)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        if let colon = trimmed.firstIndex(of: ":"),
           trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
            return nil
        }
        guard let url = URL(string: trimmed.replacingOccurrences(of: "&amp;", with: "&"), relativeTo: base) else { return nil }
        return url.absoluteString.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    @Test("the in-place HTML URL rewriter gives what the copying one gave, on random markup")
    func htmlURLRewriterMatchesReference() throws {
        let base = try #require(URL(string: "https://example.com/blog/post/"))
        let pieces = ["<a ", "<IMG ", "<p>", "</a>", ">", "/>", " ", "\n", "href", "HREF", "Src", "src", "poster", "bac\u{212A}ground",
                      "data-x", "lowsrc", "=", " = ", "\"", "'", "x.png", "/abs/path", "../up?a=1&amp;b=2", "https://other.org/x",
                      "mailto:a@b.c", "#frag", "caf\u{E9}/\u{D55C}", "é:x", "a:\u{301}b", "text & more", "<", "<1", "\u{1F600}", "  ./dot "]
        var rng = SeededRandomGenerator(seed: 0x4EF)
        for _ in 0..<3_000 {
            var html = ""
            for _ in 0..<Int.random(in: 0..<18, using: &rng) { html += pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
            #expect(FeedHTMLURLRewriter.resolve(html, against: base) == Self.referenceResolve(html, against: base), "\(html.debugDescription)")
        }
    }

    @Test("byte-level substring search and duration parsing agree with the character-level forms")
    func byteLevelTextHelpers() {
        let samples = ["", "a", "@", "a@b", "a b", "mail@host (Name)", "\u{E9}@x", "::", "://x", "x://", "\u{1F600}://"]
        for haystack in samples {
            for needle in ["@", " ", "://", "html", "\u{E9}", ""] {
                #expect(FeedText.contains(haystack, needle) == (needle.isEmpty || Array(haystack.utf8).indices.contains { Array(haystack.utf8)[$0...].starts(with: Array(needle.utf8)) }),
                        "\(haystack) / \(needle)")
            }
        }
        var rng = SeededRandomGenerator(seed: 0xC0)
        let parts = [" ", "\n", "\t", "\r", "a", "\u{E9}", "\u{A0}", "\u{2003}", "\u{1F600}", "\r\n", "x y", "\u{301}"]
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0..<10, using: &rng) { text += parts[Int.random(in: 0..<parts.count, using: &rng)] }
            // The scalar walk the collapse was written as before it worked on bytes.
            var expected = ""
            var pendingSpace = false
            for scalar in text.unicodeScalars {
                if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" {
                    pendingSpace = !expected.isEmpty
                } else {
                    if pendingSpace { expected.append(" ") }
                    pendingSpace = false
                    expected.unicodeScalars.append(scalar)
                }
            }
            #expect(FeedText.collapsed(text) == (expected.isEmpty ? nil : expected), "\(text.debugDescription)")
        }
        for name in ["pubDate", "LINK", "link", "lastBuildDate", "\u{C9}T\u{C9}", "\u{130}tem", "", "a-B_c.D9", "managingEditorWithALongName"] {
            #expect(FeedText.lowercasedName(name) == name.lowercased(), "\(name)")
        }
        #expect(FeedXMLMapper.duration("1:02:03") == 3_723)
        #expect(FeedXMLMapper.duration(" 1 : 02 :03 ") == 3_723)
        #expect(FeedXMLMapper.duration("\u{2003}5\u{2003}") == 5)
        #expect(FeedXMLMapper.duration("1::2") == nil)
        #expect(FeedXMLMapper.duration("12.5") == 12.5)
    }

    @Test("re-serialised XHTML escapes character data by whole characters, also next to combining marks")
    func xhtmlTextEscapingMatchesCharacters() throws {
        let texts = ["plain &amp; simple &lt;b&gt;", "caf\u{E9} &amp; cr\u{E8}me", "x &amp;\u{301} y", "\u{600}&amp; z", "&lt;\u{1F600}&gt;", "\u{E9}&amp;\u{E9}"]
        for text in texts {
            let xml = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title><entry><title>e</title>"
                + "<content type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">\(text)<br/>\(text)</div></content></entry></feed>"
            let content = try #require(FeedParser().parse(Data(xml.utf8)).feed.items.first?.content)
            // XMLParser decodes the references byte for byte (Foundation's replacingOccurrences would not match "&amp;\u{301}").
            var bytes: [UInt8] = []
            let source = Array(text.utf8)
            var i = 0
            while i < source.count {
                let rest = source[i...]
                if rest.starts(with: Array("&amp;".utf8)) { bytes.append(0x26); i += 5 } else if rest.starts(with: Array("&lt;".utf8)) {
                    bytes.append(0x3C); i += 4
                } else if rest.starts(with: Array("&gt;".utf8)) { bytes.append(0x3E); i += 4 } else { bytes.append(source[i]); i += 1 }
            }
            let decoded = String(decoding: bytes, as: UTF8.self)
            var escaped = ""
            FeedText.escapeText(decoded, into: &escaped)
            #expect(content == escaped + "<br />" + escaped, "\(text.debugDescription)")
        }
    }

    @Test("re-serialised attribute values are escaped as the character-level escaper does, also next to combining marks")
    func attributeEscapingMatchesCharacters() {
        let values = ["", "plain", "a & b < c \"d\"", "caf\u{E9} & cr\u{E8}me", "x &\u{301} y", "\u{600}& z", "\"\u{1F600}\"",
                      "\u{E9}<\u{E9}", "&&&", "\"", "tail &"]
        for value in values {
            var expected = ""
            FeedText.escapeAttribute(value, into: &expected)
            var bytes: [UInt8] = Array("prefix=".utf8)
            FeedText.appendEscapedAttribute(value, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "prefix=" + expected, "\(value.debugDescription)")
        }
    }

    @Test("plain UTF-8 Data is parsed where it lies exactly when decoding would leave it as it is, with the same result")
    func inPlaceDataMatchesTheCopyingPath() throws {
        let body = "<rss version=\"2.0\"><channel><title>T\u{E9}</title><item><title>a &amp; b</title><link>https://example.com/1</link></item>"
            + "<item><title>c &nbsp; d</title><description><![CDATA[<p>x</p>]]></description></item></channel></rss>"
        let cases: [(bytes: [UInt8], plain: Bool)] = [
            (Array(body.utf8), true),
            (Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + body).utf8), true),
            (Array(("<?xml-stylesheet href=\"s.css\"?>" + body).utf8), true),
            (Array(("<?xml version=\"1.0\" encoding=\"utf-8\"?>" + body).utf8), false),
            (Array(("<?xml version=\"1.0\"?>" + body).utf8), false),
            (Array(("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + body).utf8), false),
            ([0xEF, 0xBB, 0xBF] + Array(body.utf8), false),
            (Array((" " + body).utf8), false),
            (Array(body.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, false),
            (Array(body.utf8) + [0xFF], false),
        ]
        for (bytes, plain) in cases {
            #expect(bytes.withUnsafeBufferPointer { FeedEncoding.isPlainUTF8XML($0) } == plain, "\(bytes.prefix(12))")
            for configuration in [FeedParser.Configuration(), FeedParser.Configuration(maxItems: 1)] {
                let parser = FeedParser(configuration: configuration)
                let inPlace = try parser.parse(Data(bytes))
                let copied = try parser.parseOwned(bytes, documentURL: nil, httpCharset: nil)
                #expect(inPlace.feed == copied.feed, "\(bytes.prefix(12))")
                #expect(inPlace.diagnostics == copied.diagnostics, "\(bytes.prefix(12))")
                #expect(inPlace.encoding == copied.encoding, "\(bytes.prefix(12))")
            }
        }
    }

    /// A guid of the same bytes as the item's link shares the link's string; one that differs (by a byte, by length,
    /// by surrounding blanks) is its own. `isPermaLink` is compared ignoring ASCII case and surrounding blanks only.
    @Test("a guid equal to the link, or differing from it, and isPermaLink spellings map as before")
    func guidSharingAndPermaLinkSpellings() throws {
        let items: [(link: String, guid: String, permaLink: String?, id: String, isPermaLink: Bool, link2: String)] = [
            ("https://example.com/a", "https://example.com/a", nil, "https://example.com/a", true, "https://example.com/a"),
            ("https://example.com/a", "https://example.com/b", "true", "https://example.com/b", true, "https://example.com/a"),
            ("https://example.com/a", " https://example.com/a ", " FALSE ", "https://example.com/a", false, "https://example.com/a"),
            ("https://example.com/a", "https://example.com/ab", "False", "https://example.com/ab", false, "https://example.com/a"),
            ("", "https://example.com/c", "fals", "https://example.com/c", true, "https://example.com/c"),
            ("", "https://example.com/d", "falſe", "https://example.com/d", true, "https://example.com/d"),
        ]
        var xml = "<rss version=\"2.0\"><channel><title>t</title>"
        for item in items {
            let attribute = item.permaLink.map { " isPermaLink=\"\($0)\"" } ?? ""
            xml += "<item><link>\(item.link)</link><guid\(attribute)>\(item.guid)</guid></item>"
        }
        xml += "</channel></rss>"
        let feed = try FeedParser().parse(Data(xml.utf8)).feed
        try #require(feed.items.count == items.count)
        for (item, expected) in zip(feed.items, items) {
            #expect(item.id == expected.id)
            #expect(item.guidIsPermaLink == expected.isPermaLink, "\(expected.permaLink ?? "nil")")
            #expect(item.link?.absoluteString == expected.link2)
        }
    }
}
