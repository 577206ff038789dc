import Foundation
import Testing
@testable import DiarySDK
import DiarySDKConformance

/// Deterministic generator so that failures reproduce.
@Suite("Robustness and encodings")
struct RobustnessAndEncodingTests {
    /// Parses and requires that the only possible failure is a typed FeedParsingError.
    func mustNotCrash(_ data: Data, _ label: String) {
        do {
            _ = try FeedParser(configuration: .init(maxDepth: 64)).parse(data)
        } catch is FeedParsingError {
        } catch {
            Issue.record("\(label): untyped error \(error)")
        }
    }

    @Test("random garbage bytes never crash and only ever throw FeedParsingError")
    func randomGarbage() {
        var rng = SeededRandomGenerator(seed: 0xD1A7)
        let alphabet = Array("<>&;/=\"' ![]CDATA?xmlrssitemfeedentry#x0123456789\n".utf8)
        for round in 0..<300 {
            let length = Int.random(in: 0..<600, using: &rng)
            var bytes = [UInt8]()
            bytes.reserveCapacity(length)
            for _ in 0..<length {
                bytes.append(round % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : alphabet.randomElement(using: &rng)!)
            }
            if round % 3 == 0 { bytes = Array("<rss version=\"2.0\"><channel><item>".utf8) + bytes }
            if round % 5 == 0 { bytes = [0xFF, 0xFE] + bytes }
            mustNotCrash(Data(bytes), "round \(round)")
        }
    }

    @Test("pathologically nested JSON and XML fail cleanly")
    func pathologicalNesting() {
        let json = "{\"version\":\"https://jsonfeed.org/version/1\",\"title\":\"x\",\"items\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        mustNotCrash(Data(json.utf8), "deep JSON")
        let xml = "<rss version=\"2.0\"><channel>" + String(repeating: "<a>", count: 100_000)
        mustNotCrash(Data(xml.utf8), "deep XML")
        let attributes = "<rss version=\"2.0\" " + (0..<20_000).map { "a\($0)=\"\($0)\"" }.joined(separator: " ") + "><channel><title>t</title></channel></rss>"
        mustNotCrash(Data(attributes.utf8), "many attributes")
    }

    @Test("truncations and byte flips of every real feed never crash")
    func truncationsOfRealFeeds() throws {
        var rng = SeededRandomGenerator(seed: 42)
        for file in try RealFeedTests.realFiles() {
            let data = try Data(contentsOf: file)
            for k in 1...8 {
                mustNotCrash(data.prefix(data.count * k / 9), "\(file.lastPathComponent) cut \(k)/9")
            }
            for _ in 0..<4 {
                var bytes = [UInt8](data)
                for _ in 0..<20 { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
                mustNotCrash(Data(bytes), "\(file.lastPathComponent) flipped")
            }
        }
    }

    @Test("streaming parses (bytes and Data chunks) equal the Data parse for every real feed")
    func streamingEqualsDataParse() async throws {
        for file in try RealFeedTests.realFiles() {
            let data = try Data(contentsOf: file)
            let direct = try FeedParser().parse(data)
            let streamed = try await FeedParser().parse(bytes: AsyncBytes([UInt8](data)))
            #expect(streamed == direct, "\(file.lastPathComponent)")
            let chunks = AsyncStream<Data> { continuation in
                var offset = 0
                while offset < data.count {
                    continuation.yield(data.subdata(in: offset..<min(offset + 1_000, data.count)))
                    offset += 1_000
                }
                continuation.finish()
            }
            let chunked = try await FeedParser().parse(chunks: chunks)
            #expect(chunked == direct, "\(file.lastPathComponent)")
        }
    }

    @Test("parallel parses from many tasks agree")
    func concurrentParses() async throws {
        let data = try FeedFixtures.data("real/rsparser__DaringFireball.atom")
        let expected = try FeedParser().parse(data)
        try await withThrowingTaskGroup(of: FeedParseResult.self) { group in
            for _ in 0..<8 { group.addTask { try FeedParser().parse(data) } }
            for try await result in group { #expect(result == expected) }
        }
    }

    @Test("EUC-KR declared feed decodes to Korean text")
    func eucKRFixture() throws {
        let result = try FeedParser().parse(FeedFixtures.data("feedparser/encoding/euc-kr.xml"))
        #expect(result.feed.title == "년")
        #expect(result.encoding == "euc-kr")
        #expect(!result.wasRepaired)
    }

    @Test("Foundation decodes EUC-KR, CP949 and GB2312 bytes on this platform")
    func foundationLegacyEncodings() throws {
        let euckr = try #require(FeedEncoding.lookup("EUC-KR"))
        #expect(String(data: Data([0xB3, 0xE2, 0xC7, 0xD1]), encoding: euckr.encoding) == "년한")
        let gb = try #require(FeedEncoding.lookup("gb2312"))
        #expect(String(data: Data([0xD6, 0xD0, 0xCE, 0xC4]), encoding: gb.encoding) == "中文")
        let xml = Data("<?xml version=\"1.0\" encoding=\"ks_c_5601-1987\"?><rss version=\"2.0\"><channel><title>".utf8)
            + Data([0xC7, 0xD1, 0xB1, 0xDB]) + Data("</title></channel></rss>".utf8)
        #expect(try FeedParser().parse(xml).feed.title == "한글")
    }

    @Test("one corrupt character in an EUC-KR feed costs only its line; windows-1252 undefined bytes never fail")
    func legacyEncodingDamageIsContained() throws {
        let xml = Data("<?xml version=\"1.0\" encoding=\"euc-kr\"?>\n<rss version=\"2.0\"><channel>\n<title>".utf8)
            + Data([0xC7, 0xD1, 0xB1, 0xDB]) + Data("</title>\n<description>bad ".utf8) + Data([0xFF, 0xFF])
            + Data(" x</description>\n</channel></rss>".utf8)
        let result = try FeedParser().parse(xml)
        #expect(result.feed.title == "한글")
        // Foundation on Linux (ICU, CP949) maps each 0xFF to U+F8F7 (private use) instead of failing; Apple's
        // converter rejects the text and the line-by-line fallback replaces the bytes with U+FFFD and reports it.
        // Either way the rest of the document survives.
        let summary = try #require(result.feed.summary)
        #expect(summary.hasPrefix("bad ") && summary.hasSuffix(" x"))
        let cp1252 = Data("<?xml version=\"1.0\" encoding=\"windows-1252\"?><rss version=\"2.0\"><channel><title>".utf8)
            + Data([0x93, 0x81, 0x94, 0x80]) + Data("</title></channel></rss>".utf8)
        #expect(try FeedParser().parse(cp1252).feed.title == "“\u{FFFD}”€")
    }

    @Test("GB2312 real feed decodes to Chinese text")
    func gb2312Fixture() throws {
        let result = try FeedParser().parse(FeedFixtures.data("real/rsparser__kc0011.rss"))
        #expect(result.feed.title == "投资资讯网交易在线--流通纪念币最新20篇论坛主题-全文")
    }

    @Test("an HTTP charset overrides the XML declaration")
    func httpCharsetOverrides() throws {
        let result = try FeedParser().parse(FeedFixtures.data("feedparser/encoding/http_text_xml_charset_2.xml"),
                                            httpCharset: "text/xml; charset=windows-1252")
        #expect(result.feed.items.first?.summary == "This is a £“test.”")
        let latin = Data("<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>caf".utf8) + Data([0xE9]) + Data("</title></channel></rss>".utf8)
        #expect(try FeedParser().parse(latin, httpCharset: "iso-8859-1").feed.title == "café")
    }

    @Test("UTF-16 and UTF-32, with and without BOM, decode", arguments: [
        ("utf-16be-autodetect", "utf-16be"), ("utf-16be", "utf-16be"), ("utf-16le-bom", "utf-16le"),
        ("utf-32be-autodetect", "utf-32be"), ("utf-32be-bom", "utf-32be"), ("utf-32le-bom", "utf-32le"),
        ("utf16", "utf-16be"), ("utf_32", "utf-32be"),
    ])
    func unicodeFixtures(name: String, encoding: String) throws {
        let result = try FeedParser().parse(FeedFixtures.data("feedparser/encoding/\(name).xml"))
        #expect(result.encoding.hasPrefix(String(encoding.prefix(6))))
        #expect(!result.wasRepaired, "\(result.diagnostics)")
        #expect([FeedFormat.rss20, .atom10].contains(result.feed.format))
    }

    @Test("UTF-16 LE without BOM or declaration decodes")
    func utf16WithoutBOM() throws {
        let xml = "<rss version=\"2.0\"><channel><title>Ünïcode ✓</title></channel></rss>"
        let le = xml.data(using: .utf16LittleEndian)!
        #expect(try FeedParser().parse(le).feed.title == "Ünïcode ✓")
        let be32 = xml.data(using: .utf32BigEndian)!
        #expect(try FeedParser().parse(be32).feed.title == "Ünïcode ✓")
    }

    @Test("invalid UTF-8 without a declared encoding is read as windows-1252 and reported")
    func invalidUTF8Fallback() throws {
        let bytes = Data("<rss version=\"2.0\"><channel><title>na".utf8) + Data([0xEF, 0x76, 0x65]) + Data("</title></channel></rss>".utf8)
        let result = try FeedParser().parse(bytes)
        #expect(result.feed.title == "naïve")
        #expect(result.diagnostics.contains { $0.kind == "invalidUTF8" })
    }

    @Test("an unknown declared encoding is reported and decoded as UTF-8")
    func unknownEncoding() throws {
        let result = try FeedParser().parse(Data("<?xml version=\"1.0\" encoding=\"x-bogus\"?><rss version=\"2.0\"><channel><title>t</title></channel></rss>".utf8))
        #expect(result.feed.title == "t")
        #expect(result.wasRepaired)
    }
}
