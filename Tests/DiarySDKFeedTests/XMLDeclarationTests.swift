import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import DiarySDK

/// Unterminated, truncated and cut-off XML declarations. Before the fix each of these could crash the process inside
/// the system XML parser: the declaration reached it unrewritten (naming an encoding after the bytes had been
/// transcoded), and the tree builder stopped the parser from inside its error callback.
@Suite("XML declarations that are not terminated")
struct XMLDeclarationTests {
    /// The 34-byte reproducer from the issue: an unterminated declaration naming `eS` (ISO646-ES to iconv), then 0xD1.
    static let reproducer: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"eS\"".utf8) + [0xD1]

    /// A declared encoding the parser decodes, and a title in it.
    struct Family: Sendable, CustomTestStringConvertible {
        let label: String
        let sample: String
        /// The sample's bytes where Foundation cannot encode to the encoding on every platform.
        var bytes: [UInt8]?
        var testDescription: String { label }

        /// `text` in this encoding: ASCII text as it is, the sample as its bytes; UTF-16/32 encode everything.
        func encode(_ before: String, sample withSample: Bool = true, _ after: String = "") throws -> Data {
            let encoding = try #require(FeedEncoding.lookup(label)).encoding
            if label.hasPrefix("utf-16") || label.hasPrefix("utf-32") {
                return try #require((before + (withSample ? sample : "") + after).data(using: encoding))
            }
            let middle = withSample ? try bytes.map { Data($0) } ?? #require(sample.data(using: encoding)) : Data()
            return Data(before.utf8) + middle + Data(after.utf8)
        }
    }

    /// One label per family ``FeedEncoding/lookup(_:)`` knows, and the Korean label old Korean blogs serve.
    static let families: [Family] = [
        Family(label: "utf-8", sample: "Café ünïcödé ✓"), Family(label: "us-ascii", sample: "plain"),
        Family(label: "iso-8859-1", sample: "Café"), Family(label: "windows-1252", sample: "Café €"),
        Family(label: "utf-16", sample: "Café 한국"), Family(label: "utf-16le", sample: "Café 한국"),
        Family(label: "utf-16be", sample: "Café 한국"), Family(label: "utf-32", sample: "Café 한국"),
        Family(label: "utf-32le", sample: "Café 한국"), Family(label: "utf-32be", sample: "Café 한국"),
        Family(label: "euc-kr", sample: "한국어 블로그"), Family(label: "ks_c_5601-1987", sample: "안녕하세요"),
        Family(label: "gb2312", sample: "中文博客"), Family(label: "big5", sample: "中文部落格"),
        Family(label: "shift_jis", sample: "日本語"), Family(label: "euc-jp", sample: "日本語", bytes: [0xC6, 0xFC, 0xCB, 0xDC, 0xB8, 0xEC]),
        Family(label: "iso-2022-jp", sample: "日本語"), Family(label: "koi8-r", sample: "Привет"),
        Family(label: "koi8-u", sample: "Привіт"), Family(label: "iso-8859-15", sample: "Café €"),
        Family(label: "macintosh", sample: "Café"), Family(label: "iso-8859-2", sample: "Zażółć"),
        Family(label: "iso-8859-5", sample: "Привет"), Family(label: "iso-8859-7", sample: "Καλημέρα"),
        Family(label: "windows-1250", sample: "Zażółć"), Family(label: "windows-1251", sample: "Привет"),
        Family(label: "windows-1253", sample: "Καλημέρα"), Family(label: "windows-1254", sample: "Çağrı"),
        Family(label: "windows-1255", sample: "שלום"), Family(label: "windows-1256", sample: "مرحبا"),
        Family(label: "windows-1257", sample: "ąčęė"), Family(label: "windows-1258", sample: "Việt", bytes: [0x56, 0x69, 0xEA, 0xF2, 0x74]),
    ]

    /// How the declaration `<?xml version="1.0" encoding="…` ends before the feed's first tag.
    enum Ending: String, CaseIterable, Sendable {
        case angleBracket, questionMark, newline, markup

        var text: String {
            switch self {
            case .angleBracket: "\">\n"
            case .questionMark: "\"?"
            case .newline: "\"\n"
            case .markup: "\""
            }
        }
    }

    static let open = "<rss version=\"2.0\"><channel><title>"
    static let close = "</title><item><title>x</title></item></channel></rss>"

    /// Parses `data`; the only failure allowed is a ``FeedParsingError``. Also checks what the XML parser would be
    /// given: a declaration there, if any, is exactly the UTF-8 one (another would make it switch encodings).
    @discardableResult
    static func parseTotally(_ data: Data, httpCharset: String? = nil, _ label: String) -> Result<FeedParseResult, FeedParsingError>? {
        if let decoded = try? FeedEncoding.decode(data, httpCharset: httpCharset) {
            let b = decoded.bytes
            let declaration = b.starts(with: Array("<?xml".utf8)) && b.count > 5 && [0x20, 0x09, 0x0A, 0x0D].contains(b[5])
            #expect(!declaration || b.starts(with: FeedEncoding.utf8Declaration), "\(label): \(String(decoding: b.prefix(80), as: UTF8.self))")
        }
        do {
            return .success(try FeedParser().parse(data, httpCharset: httpCharset))
        } catch let error as FeedParsingError {
            return .failure(error)
        } catch {
            Issue.record("\(label): untyped error \(error)")
            return nil
        }
    }

    @Test("the issue's 34-byte reproducer fails with a typed malformedXML error")
    func thirtyFourByteReproducer() throws {
        #expect(Self.reproducer.count == 34)
        let error = #expect(throws: FeedParsingError.self) { try FeedParser().parse(Data(Self.reproducer)) }
        #expect(error?.code == .malformedXML)
    }

    @Test("an old Korean blog's feed with <?xml … encoding=\"ks_c_5601-1987\"> decodes to Korean text")
    func koreanBlogDeclarationWithoutQuestionMark() throws {
        let korean = try #require(FeedEncoding.lookup("ks_c_5601-1987")).encoding
        let feed = try #require("""
            <?xml version="1.0" encoding="ks_c_5601-1987">
            <rss version="2.0"><channel><title>우리 블로그</title>
            <item><title>안녕하세요</title><description>한국어 글입니다</description></item></channel></rss>
            """.data(using: korean))
        let result = try FeedParser().parse(feed)
        #expect(result.feed.title == "우리 블로그")
        #expect(result.feed.items.map(\.title) == ["안녕하세요"])
        #expect(result.encoding == "euc-kr")
        #expect(result.diagnostics.contains { $0.kind == "unterminatedDeclaration" && $0.severity == .repaired })
    }

    @Test("the real EUC-KR fixture with its declaration's ?> removed still decodes")
    func realKoreanFixtureUnterminated() throws {
        var bytes = try [UInt8](FeedFixtures.data("feedparser/encoding/euc-kr.xml"))
        let end = try #require(bytes.indices.first { bytes[$0] == UInt8(ascii: "?") && bytes[$0 + 1] == UInt8(ascii: ">") && $0 > 2 })
        bytes.removeSubrange(end..<(end + 2))
        let result = try FeedParser().parse(Data(bytes))
        #expect(result.feed.title == "년")
        #expect(result.encoding == "euc-kr")
    }

    @Test("an unterminated declaration naming any supported encoding is honoured and replaced",
          arguments: families, Ending.allCases)
    func unterminatedDeclaration(family: Family, ending: Ending) throws {
        let data = try family.encode("<?xml version=\"1.0\" encoding=\"\(family.label)" + ending.text + Self.open, Self.close)
        let result = try #require(try Self.parseTotally(data, "\(family.label) \(ending)")?.get())
        #expect(result.diagnostics.contains { $0.kind == "unterminatedDeclaration" })
        // Foundation on Linux has no EUC-JP decoder (Apple's has); the declaration is still honoured and replaced.
        let encoding = try #require(FeedEncoding.lookup(family.label)).encoding
        let decodable = try String(data: family.encode("", ""), encoding: encoding) == family.sample
        withKnownIssue("Foundation cannot decode \(family.label) on this platform") {
            #expect(result.feed.title == family.sample)
        } when: { !decodable }
    }

    @Test("an unterminated declaration at the end of the file, bare or followed by text, fails with a typed error",
          arguments: families)
    func declarationAtEndOfFile(family: Family) throws {
        let declaration = "<?xml version=\"1.0\" encoding=\"\(family.label)\""
        for data in [try family.encode(declaration, sample: false), try family.encode(declaration + " "),
                     try family.encode(declaration)] {
            let outcome = Self.parseTotally(data, "\(family.label) at EOF")
            guard case .failure(let error) = outcome else { Issue.record("\(family.label): parsed \(String(describing: outcome))"); continue }
            #expect(error.code == .malformedXML || error.code == .unsupportedEncoding, "\(error)")
        }
    }

    @Test("every truncation of a declaration, alone or before a feed, parses or fails with a typed error",
          arguments: ["euc-kr", "windows-1252", "utf-8", "eS", "utf-16", "x-unknown"])
    func truncatedDeclarations(label: String) throws {
        let declaration = Array("<?xml version=\"1.0\" encoding=\"\(label)\" standalone=\"yes\"?>".utf8)
        let feed = Array((Self.open + "T\u{E9}st" + Self.close).utf8)
        let tails: [[UInt8]] = [[], [0xD1], [0x0A] + feed, feed, [0xB3, 0xE2] + feed]
        for cut in 0...declaration.count {
            for tail in tails {
                let bytes = Array(declaration[..<cut]) + tail
                let outcome = Self.parseTotally(Data(bytes), "\(label) cut at \(cut)")
                let complete = cut > 30 + label.utf8.count
                if complete, tail == feed, label == "utf-8" { #expect(try outcome?.get().feed.title == "T\u{E9}st") }
            }
        }
    }

    @Test("labels only the system's converter knows (ISO646, EBCDIC, UCS-4, UTF-7) never reach it",
          arguments: ["eS", "ISO646-ES", "EBCDIC-US", "IBM037", "UCS-4", "UCS-2", "UTF-7", "ISO-10646-UCS-4", "CP1047"])
    func labelsForeignToTheParser(label: String) throws {
        let (open, close) = (Self.open, Self.close)
        for ending in ["\"?>", "\">", "\"", ""] {
            for tail in [Array((open + "Ñ" + close).utf8), [0xD1], [0xC3, 0x91], Array((open + close).utf8) + [0xD1]] {
                let data = Data("<?xml version=\"1.0\" encoding=\"\(label)\(ending)".utf8) + Data(tail)
                Self.parseTotally(data, "\(label)\(ending)")
                Self.parseTotally(data, httpCharset: "text/xml; charset=\(label)", "\(label)\(ending) with an HTTP charset")
            }
        }
    }

    @Test("processing instructions without data, which XMLParser on Linux read as a null C string, parse",
          arguments: ["<?php?>", "<??>", "<?x\u{0}\u{0}?>", "<?xml-stylesheet?>", "<?a/b?>"])
    func processingInstructionWithoutData(instruction: String) throws {
        let inside = "<rss version=\"2.0\"><channel><title>T</title>\(instruction)<item><title>1</title></item></channel></rss>"
        let outcome = Self.parseTotally(Data(inside.utf8), instruction)
        if case .success(let result) = outcome { #expect(result.feed.items.map(\.title) == ["1"]) }
        Self.parseTotally(Data((instruction + "<rss version=\"2.0\"><channel><title>T</title></channel></rss>").utf8), instruction)
        // The input the fuzz target found (after 287,634 inputs): a PI named from a broken declaration, then a DOCTYPE.
        let found: [UInt8] = Array("<?xm".utf8) + [0xFF] + Array("utf-32".utf8) + [0, 0] + Array("?>\n<!--\nDe".utf8) + [0xDD]
            + Array("t bozo\n-->JEF\n<!DOCTYPE rdf:".utf8) + [0xFF] + Array("DF [\n<!ENTITY % #\" xml".utf8) + [0xBA]
            + Array("base=\"http://e/\"\n> \n</rdf:RDF>".utf8)
        Self.parseTotally(Data(found), "fuzz input")
    }

    /// A processing instruction only becomes data-less once the repair pass has removed what stood between its target
    /// and its `?>`: a forbidden control character, a misplaced declaration, a DOCTYPE, an entity that expands to
    /// nothing or to `?>` itself; or libxml2 reaches it while recovering from an error.
    @Test("processing instructions that the repair pass leaves without data parse",
          arguments: [
              "<?a?\u{0}>", "<?a\u{1}?\u{2}>", "<?a<?xml version=\"1.0\"?>?>", "<?a<!DOCTYPE x>?>", "<?a&e;?>", "<?a&q;",
              "<?a&e;?\u{0}>", "<?a <![CDATA[ ?><?b?\u{0}>",
              // libxml2 recovers from a character XML forbids by parsing what follows as markup.
              "<!-- \u{FFFE} <?b?> -->", "<?a x\u{FFFE}<?b?>", "<![CDATA[\u{FFFE}<?b?>]]>",
              "<?A?<?b?>>", "<<?b?>?c?>", "<!-- \u{FFFE} <<?b?>?c?> -->",
          ])
    func processingInstructionLeftWithoutDataByRepair(instruction: String) throws {
        let doctype = "<!DOCTYPE rss [<!ENTITY e \"\"><!ENTITY q \"?>\">]>"
        let inside = doctype + "<rss version=\"2.0\"><channel><title>T</title>\(instruction)<item><title>1</title></item></channel></rss>"
        Self.parseTotally(Data(inside.utf8), instruction)
        Self.parseTotally(Data((doctype + instruction + "<rss version=\"2.0\"><channel><title>T</title></channel></rss>").utf8), instruction)
        // The input the fuzz target found in CI (after 30,694 inputs): the control character sits between `?` and `>`.
        let found = try #require(Data(base64Encoded: "PD94bf91dGYtMzIAPwA+CjwhLS0KRGXddCBib3pvCi0tPkpFRgo8IURPQ1RZUEUgcmRmOv9ERiBb9sPeurGrtrVZICUgIyIgeG1sumJhc2U9Imh0dHA6Ly9lLyIKPiAKPC9yZGY6UkRGPg=="))
        Self.parseTotally(found, "fuzz input")
    }

    @Test("data-less instructions are dropped after `>` or a blank, spaced elsewhere, and split inside CDATA",
          arguments: [
              ("x<?b?>y", "x<?b ?>y"), ("x><?b?> y", "x> y"), ("<?a<?b?>?>", "<?a<?b ?>?>"), ("<?a<?b?><?c?>?>", "<?a<?b ?>?>"),
              // Found by a second read: dropping would join `<` or `<?A?` before to `?c?>` or `>` after.
              ("<<?b?>?c?>", "<<?b ?>?c?>"), ("<?A?<?b?>>", "<?A?<?b ?>>"), ("<<?A?<??>>a", "<<?A?<? ?>>a"),
              ("<?C!?<?[?>>A<a", "<?C!?<?[ ?>>A<a"),
              ("<![CDATA[<?php?>]]><?x?>", "<![CDATA[<?php]]><![CDATA[?>]]>"), ("<!-- <?b?> -->", "<!--  -->"),
              ("<?a b?>", "<?a b?>"), ("<??>", ""),
          ])
    func datalessInstructionRewrites(input: String, expected: String) throws {
        var bytes = Array(input.utf8)
        FeedMarkupRepair.separateDatalessInstructions(&bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        var again = bytes
        FeedMarkupRepair.separateDatalessInstructions(&again)
        #expect(again == bytes, "one pass leaves nothing for a second")
    }

    @Test("a processing instruction inside CDATA is text and is left as it is")
    func processingInstructionInsideCDATAIsText() throws {
        let document = "<rss version=\"2.0\"><channel><title>T\u{1}</title><item><title><![CDATA[<?php?>]]></title></item></channel></rss>"
        let result = try #require(try Self.parseTotally(Data(document.utf8), "CDATA")?.get())
        #expect(result.feed.items.map(\.title) == ["<?php?>"])
    }

    @Test("the tree builder lets the system XML parser finish after an encoding error instead of stopping it from its callback")
    func builderSurvivesErrorsRaisedDuringAnEncodingSwitch() throws {
        let inputs: [[UInt8]] = [
            Self.reproducer,
            Array("<?xml version=\"1.0\" encoding=\"ks_c_5601-1987\">\n<rss><channel><title>우리 블로그</title></channel></rss>".utf8),
            Array("<?xml version=\"1.0\" encoding=\"ISO646-ES\"?><rss><channel><title>Ñ</title></channel></rss>".utf8),
        ]
        for bytes in inputs {
            let parser = XMLParser(data: Data(bytes))
            let builder = FeedXMLTreeBuilder(documentURL: nil, maxDepth: 64, maxItems: nil)
            parser.delegate = builder
            _ = parser.parse()
            parser.delegate = nil
            #expect(builder.failed, "\(bytes.count) bytes")
        }
    }
}
