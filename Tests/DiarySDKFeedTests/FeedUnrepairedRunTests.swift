import Foundation
import Testing
@testable import DiarySDK

/// A document that may need no repair is parsed as it is first; the repair pass runs only when that run cannot stand
/// for it. Both ways must give the same feed, diagnostics and errors.
@Suite("Parsing before repairing")
struct FeedUnrepairedRunTests {
    /// Every fixture and real feed as raw bytes, with the charset its HTTP headers gave.
    static func rawDocuments() throws -> [(name: String, data: Data, charset: String?)] {
        let dir = try FeedFixtures.directory()
        var documents: [(String, Data, String?)] = []
        let manifest = try FeedFixtures.json("manifest.json")
        for entry in manifest["entries"] as? [[String: Any]] ?? [] {
            guard let path = entry["path"] as? String, let data = try? Data(contentsOf: dir.appendingPathComponent(path)) else { continue }
            let headers = entry["http_headers"] as? [String: String] ?? [:]
            documents.append((path, data, headers["Content-Type"]))
        }
        for file in try RealFeedTests.realFiles() {
            documents.append((file.lastPathComponent, try Data(contentsOf: file), nil))
        }
        return documents
    }

    static func outcome(_ parser: FeedParser, _ data: Data, _ charset: String?) -> String {
        do {
            let result = try parser.parse(data, documentURL: URL(string: "https://feeds.example/dir/feed.xml"), httpCharset: charset)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let feed = (try? encoder.encode(result.feed)).map { String(decoding: $0, as: UTF8.self) } ?? "unencodable"
            return feed + "\n" + result.diagnostics.map { "\($0.kind) \($0.severity) \($0.line ?? -1) \($0.message)" }.joined(separator: "\n")
        } catch {
            return "error: \(error)"
        }
    }

    @Test("every fixture and real feed gives the same feed, diagnostics or error parsed first or repaired first")
    func sameOutcomeBothWays() throws {
        var repairedFirst = FeedParser()
        repairedFirst.alwaysRepairsFirst = true
        let documents = try Self.rawDocuments()
        #expect(documents.count > 300)
        for (name, data, charset) in documents {
            #expect(Self.outcome(FeedParser(), data, charset) == Self.outcome(repairedFirst, data, charset), "\(name)")
        }
    }

    @Test("what the repair pass changes in well-formed XML still changes: C1 references, the DOCTYPE, data-less instructions")
    func wellFormedRepairsStillApply() throws {
        var repairedFirst = FeedParser()
        repairedFirst.alwaysRepairsFirst = true
        let documents = [
            // A C1 reference is well-formed XML: XMLParser would give U+0092, the repair pass gives ’.
            "<rss version=\"2.0\"><channel><title>It&#146;s</title><item><title>a&#x93;b&#x94;</title></item></channel></rss>",
            // In an attribute value and a namespace URI too.
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title><entry><title>e</title><category term=\"x&#150;y\"/></entry></feed>",
            // A DOCTYPE with an internal entity: expanded by the repair pass's own budgeted expander, with its diagnostic.
            "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY who \"Alice\">]><rss version=\"2.0\"><channel><title>&who;</title></channel></rss>",
            "<!-- c --><!doctype rss><rss version=\"2.0\"><channel><title>t</title></channel></rss>",
            // A data-less processing instruction, which crashes XMLParser on Linux, before and after the root.
            "<?php?><rss version=\"2.0\"><channel><title>t</title><item><title>a<?x?>b</title></item></channel></rss><?y?>",
            // A literal C1 character (not a reference) takes the repair path and comes out as before.
            "<rss version=\"2.0\"><channel><title>x\u{92}y</title></channel></rss>",
        ]
        for document in documents {
            let data = Data(document.utf8)
            #expect(Self.outcome(FeedParser(), data, nil) == Self.outcome(repairedFirst, data, nil), "\(document)")
        }
        let c1 = try FeedParser().parse(Data(documents[0].utf8)).feed
        #expect(c1.title == "It\u{2019}s")
        #expect(c1.items.first?.title == "a\u{201C}b\u{201D}")
        let atom = try FeedParser().parse(Data(documents[1].utf8)).feed
        #expect(atom.items.first?.categories == ["x\u{2013}y"])
        let entity = try FeedParser().parse(Data(documents[2].utf8))
        #expect(entity.feed.title == "Alice")
        #expect(entity.diagnostics.contains { $0.kind == "internalEntity" })
        #expect(try FeedParser().parse(Data(documents[4].utf8)).feed.items.first?.title == "ab")
    }

    @Test("the prolog check finds a DOCTYPE past the declaration, comments and instructions, and nothing in the root")
    func prologCheck() {
        func check(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { FeedMarkupRepair.prologMayHoldDoctype($0) }
        }
        #expect(!check("<?xml version=\"1.0\"?>\n<rss/>"))
        #expect(!check("\u{FEFF}<!-- a -- b --><?pi x?>\r\n\t<feed><!DOCTYPE inside/></feed>"))
        #expect(check("<?xml version=\"1.0\"?><!DOCTYPE rss><rss/>"))
        #expect(check("<!--x--><!doctype rss><rss/>"))
        #expect(check("<!-- unterminated <rss/>"))
        #expect(check("text<rss/>"))
        #expect(check(""))
        #expect(check("<?xml version=\"1.0\"?>"))
    }
}
