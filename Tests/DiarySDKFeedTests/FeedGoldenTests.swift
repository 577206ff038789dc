import Foundation
import Testing
@testable import DiarySDK

/// Pins the parser's complete output — every field of every feed and item, the diagnostics, the encoding, or the error —
/// for every manifest document, every real feed, truncated real feeds and the item/depth limits, to the values the
/// class-per-element tree parser produced before the flat-arena redesign (`FeedGoldenDigests.swift`, one FNV-1a digest
/// of a canonical rendering per case, kept in Swift source so that the test target needs no resources). They were
/// re-recorded once since, for the deliberate change that lists RSS enclosures among an item's links too; only the 26
/// cases with RSS enclosures changed, and only in those links.
///
/// Regenerate only for an intended behaviour change: `DIARYSDK_WRITE_GOLDEN=1 swift test --filter FeedGoldenTests`.
/// The digests were recorded with swift-corelibs-foundation on Linux; `URL`'s handling of sloppy strings and
/// `JSONEncoder`'s number formatting differ in edge cases on Apple platforms, so the comparison runs on Linux only.
@Suite("Golden parser output")
struct FeedGoldenTests {
    struct Case {
        var name: String
        var data: Data
        var documentURL: URL?
        var httpCharset: String?
        var configuration = FeedParser.Configuration()
    }

    static func cases() throws -> [Case] {
        let dir = try FeedFixtures.directory()
        var cases: [Case] = []
        let manifest = try FeedFixtures.json("manifest.json")
        for entry in manifest["entries"] as? [[String: Any]] ?? [] {
            guard let path = entry["path"] as? String, let id = entry["id"] as? String else { continue }
            let headers = entry["http_headers"] as? [String: String] ?? [:]
            var documentURL = (entry["document_uri"] as? String).flatMap(URL.init(string:))
            if let location = headers["Content-Location"] { documentURL = URL(string: location, relativeTo: documentURL)?.absoluteURL }
            let data = try Data(contentsOf: dir.appendingPathComponent(path))
            cases.append(Case(name: "manifest:\(id)", data: data, documentURL: documentURL, httpCharset: headers["Content-Type"]))
        }
        for file in try RealFeedTests.realFiles() {
            let name = file.lastPathComponent
            let data = try Data(contentsOf: file)
            let base = URL(string: "https://example.org/feeds/\(name)")
            cases.append(Case(name: "real:\(name)", data: data))
            cases.append(Case(name: "real+base:\(name)", data: data, documentURL: base))
            cases.append(Case(name: "real+maxItems3:\(name)", data: data, configuration: .init(maxItems: 3)))
            cases.append(Case(name: "real+maxDepth4:\(name)", data: data, configuration: .init(maxDepth: 4)))
            for fraction in [3, 2] {
                cases.append(Case(name: "real+cut1/\(fraction):\(name)", data: data.prefix(data.count / fraction), documentURL: base))
            }
        }
        for style in ["rss-cdata", "rss-escaped", "atom"] {
            cases.append(Case(name: "generated:\(style)", data: generated(style, items: 25), documentURL: URL(string: "https://example.com/feed")))
        }
        return cases
    }

    /// A small version of the benchmark's generated documents (Benchmarks/Sources/FeedBenchmarks/main.swift).
    static func generated(_ style: String, items: Int) -> Data {
        let paragraph = "Today I learned how <code>async let</code> works &amp; why the <em>task tree</em> matters. "
        let html = "<p>\(paragraph)</p><ul><li>One</li><li>Two &amp; three</li></ul><p><a href=\"https://example.com/x?a=1&amp;b=2\">link</a> <img src=\"/i.png\"/></p>"
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        var out = ""
        if style == "atom" {
            out += "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Bench</title><id>urn:bench</id><updated>2026-03-10T12:00:00Z</updated><link rel=\"alternate\" href=\"https://example.com/\"/>\n"
            for i in 0..<items {
                out += "<entry><title>Post number \(i)</title><id>urn:bench:\(i)</id><link rel=\"alternate\" href=\"https://example.com/posts/\(i)\"/>"
                out += "<published>2026-03-\(10 - i % 9)T1\(i % 10):00:00+09:00</published><updated>2026-03-10T12:00:00Z</updated>"
                out += "<author><name>Alice</name></author><category term=\"swift\"/><category term=\"til\"/>"
                out += "<summary>Summary of post \(i)</summary><content type=\"html\">\(escaped(html + html))</content></entry>\n"
            }
            out += "</feed>\n"
        } else {
            out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"><channel><title>Bench</title><link>https://example.com/</link><description>d</description>\n"
            for i in 0..<items {
                out += "<item><title>Post number \(i)</title><link>https://example.com/posts/\(i)</link><guid isPermaLink=\"true\">https://example.com/posts/\(i)</guid>"
                out += "<pubDate>Tue, 0\(1 + i % 9) Mar 2026 1\(i % 10):00:00 +0900</pubDate><dc:creator>Alice</dc:creator><category>swift</category><category>til</category>"
                if style == "rss-cdata" {
                    out += "<description><![CDATA[\(html)]]></description><content:encoded><![CDATA[\(html + html)]]></content:encoded></item>\n"
                } else {
                    out += "<description>\(escaped(html))</description><content:encoded>\(escaped(html + html))</content:encoded></item>\n"
                }
            }
            out += "</channel></rss>\n"
        }
        return Data(out.utf8)
    }

    /// A canonical text rendering of a parse outcome: the result encoded as sorted-key JSON, or the error's fields.
    static func render(_ outcome: Result<FeedParseResult, Error>) -> String {
        switch outcome {
        case .success(let result):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .secondsSince1970
            let feed = (try? encoder.encode(result.feed)).map { String(decoding: $0, as: UTF8.self) } ?? "unencodable"
            let diagnostics = result.diagnostics.map { "\($0.kind)|\($0.severity.rawValue)|\($0.line.map(String.init) ?? "-")|\($0.message)" }
            return "ok\n\(result.encoding)\n\(feed)\n" + diagnostics.joined(separator: "\n")
        case .failure(let error as FeedParsingError):
            return "error\n\(error.code)|\(error.line.map(String.init) ?? "-")|\(error.column.map(String.init) ?? "-")|\(error.message)"
        case .failure(let error):
            return "untyped error \(error)"
        }
    }

    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func outcome(_ c: Case) -> Result<FeedParseResult, Error> {
        Result { try FeedParser(configuration: c.configuration).parse(c.data, documentURL: c.documentURL, httpCharset: c.httpCharset) }
    }

    static let goldenFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FeedGoldenDigests.swift")

    @Test("every manifest document, real feed, truncation and limit parses exactly as before the redesign")
    func outputsMatchTheRecordedDigests() throws {
        let cases = try Self.cases()
        #expect(cases.count > 800)
        // DIARYSDK_GOLDEN_DUMP=<dir> also writes every rendering, for diffing two versions of the parser.
        let dump = ProcessInfo.processInfo.environment["DIARYSDK_GOLDEN_DUMP"].map { URL(fileURLWithPath: $0) }
        var lines: [String] = []
        for (index, c) in cases.enumerated() {
            let rendering = Self.render(Self.outcome(c))
            lines.append("\(c.name)\t\(Self.digest(rendering))")
            if let dump {
                try? FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
                try? "\(c.name)\n\(rendering)".write(to: dump.appendingPathComponent("\(index).txt"), atomically: false, encoding: .utf8)
            }
        }
        if ProcessInfo.processInfo.environment["DIARYSDK_WRITE_GOLDEN"] == "1" {
            let source = "// Generated by FeedGoldenTests (DIARYSDK_WRITE_GOLDEN=1); one line per case: name, tab, digest.\n"
                + "enum FeedGoldenDigests {\n    static let recorded = #\"\"\"\n" + lines.joined(separator: "\n") + "\n\"\"\"#\n}\n"
            try source.write(to: Self.goldenFile, atomically: true, encoding: .utf8)
            return
        }
        #if os(Linux)
        let recorded = FeedGoldenDigests.recorded.split(separator: "\n").map(String.init)
        #expect(recorded.count == lines.count)
        let expected = Dictionary(recorded.map { line -> (String, String) in
            let parts = line.split(separator: "\t")
            return (String(parts[0]), String(parts.last ?? ""))
        }, uniquingKeysWith: { first, _ in first })
        var mismatches: [String] = []
        for (c, line) in zip(cases, lines) where expected[c.name] != String(line.split(separator: "\t").last ?? "") {
            mismatches.append(c.name)
        }
        #expect(mismatches.isEmpty, "outputs changed for \(mismatches.count) cases: \(mismatches.prefix(40).joined(separator: ", "))")
        #endif
    }
}
