import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import DiarySDK

/// A result handed from a thread to the waiting test (written once, before `done` is signalled).
final class SmallStackBox<T>: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var value: T?
}

/// Deep nesting on small stacks, and documents past libxml2's 10,000,000-byte input limit.
@Suite("Feed depth and size limits")
struct FeedDepthAndSizeTests {
    /// Runs `body` on a thread with a 512 KiB stack (the default for secondary threads on Apple platforms) and
    /// returns what it returned; a recursion per element would overflow it long before the depths used here.
    func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = SmallStackBox<T>()
        let thread = Thread {
            box.value = body()
            box.done.signal()
        }
        thread.stackSize = 512 * 1_024
        thread.start()
        box.done.wait()
        return box.value!
    }

    /// `depth` nested elements `<open>…</close>` around the word "core".
    func nest(_ depth: Int, open: String, close: String) -> String {
        var s = ""
        s.reserveCapacity(depth * (open.utf8.count + close.utf8.count) + 4)
        for _ in 0..<depth { s += open }
        s += "core"
        for _ in 0..<depth { s += close }
        return s
    }

    static let deepDocuments: [(name: String, xml: String, depth: Int)] = {
        let depth = 50_000
        func nest(_ open: String, _ close: String) -> String {
            String(repeating: open, count: depth) + "core" + String(repeating: close, count: depth)
        }
        return [
            ("Atom XHTML content", """
             <feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><title>e</title>
             <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">\(nest("<span>", "</span>"))</div></content></entry></feed>
             """, depth),
            ("RSS description with child elements", """
             <rss version="2.0"><channel><title>t</title><item><title>i</title><description>\(nest("<b>", "</b>"))</description></item></channel></rss>
             """, depth),
            ("nested media:group", """
             <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>t</title><item><title>i</title>\
             \(nest("<media:group>", "</media:group>").replacingOccurrences(of: "core", with: "<media:content url=\"http://m.test/a.mp4\"/>"))\
             </item></channel></rss>
             """, depth),
            ("nested itunes:category", """
             <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>t</title>\
             \(nest("<itunes:category text=\"c\">", "</itunes:category>").replacingOccurrences(of: "core", with: ""))\
             <item><title>i</title></item></channel></rss>
             """, depth),
        ]
    }()

    @Test("50,000 nested elements parse on a 512 KiB stack with maxDepth 100,000", arguments: 0..<4)
    func deepNestingOnSmallStack(_ index: Int) throws {
        let (name, xml, depth) = Self.deepDocuments[index]
        let data = Data(xml.utf8)
        let result = onSmallStack { () -> Result<Feed, FeedParsingError> in
            do {
                return .success(try FeedParser(configuration: .init(maxDepth: 100_000)).parse(data).feed)
            } catch {
                return .failure(error as! FeedParsingError)
            }
        }
        let feed = try result.get()
        let item = try #require(feed.items.first, "\(name)")
        switch index {
        case 0:
            let content = try #require(item.content)
            #expect(content.hasPrefix("<span><span>"))
            #expect(content.contains("<span>core</span>"))
            #expect(content.components(separatedBy: "</span>").count == depth + 1)
            #expect(item.contentType == .xhtml)
        case 1:
            let summary = try #require(item.summary)
            #expect(summary.components(separatedBy: "<b>").count == depth + 1)
            #expect(summary.components(separatedBy: "</b>").count == depth + 1)
        case 2:
            #expect(item.media.map(\.url.absoluteString) == ["http://m.test/a.mp4"])
        default:
            #expect(feed.categories.count == depth)
        }
    }

    @Test("a document deeper than maxDepth fails with .tooDeep, on a small stack too")
    func tooDeep() {
        let xml = "<rss version=\"2.0\"><channel><title>t</title><item><description>" + nest(5_000, open: "<b>", close: "</b>")
            + "</description></item></channel></rss>"
        let data = Data(xml.utf8)
        let code = onSmallStack { () -> String? in
            do {
                _ = try FeedParser(configuration: .init(maxDepth: 2_000)).parse(data)
                return nil
            } catch {
                return (error as? FeedParsingError)?.code.rawValue
            }
        }
        #expect(code == FeedParsingError.Code.tooDeep.rawValue)
    }

    /// A well-formed RSS document of at least `bytes` bytes; returns it and its item count.
    static func largeRSS(atLeast bytes: Int) -> (data: Data, items: Int) {
        var out = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>Large</title><link>https://large.test/</link>\n".utf8)
        out.reserveCapacity(bytes + 4_096)
        let body = String(repeating: "Lorem ipsum dolor sit amet &amp; consectetur. ", count: 20)
        var items = 0
        while out.count < bytes {
            out += Array("<item><title>Item \(items)</title><link>https://large.test/\(items)</link><guid>urn:large:\(items)</guid><pubDate>Tue, 10 Mar 2026 12:00:00 GMT</pubDate><description>\(body)</description></item>\n".utf8)
            items += 1
        }
        out += Array("</channel></rss>\n".utf8)
        return (Data(out), items)
    }

    @Test("a well-formed feed larger than 10,000,000 bytes parses completely without a diagnostic")
    func largerThanTenMillionBytes() throws {
        let (data, items) = Self.largeRSS(atLeast: 12_000_000)
        #expect(data.count > 10_000_000)
        let result = try FeedParser().parse(data)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(!result.wasRepaired)
        #expect(result.feed.items.count == items)
        #expect(result.feed.items.last?.title == "Item \(items - 1)")
        #expect(result.feed.items.last?.link?.absoluteString == "https://large.test/\(items - 1)")
    }

    @Test("a large feed read from a file and from a chunk stream gives the same feed, still without a diagnostic")
    func largeFeedFromFileAndStream() async throws {
        let (data, items) = Self.largeRSS(atLeast: 10_500_000)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("diarysdk-large-\(UUID().uuidString).xml")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try FeedParser().parse(contentsOf: file)
        #expect(fromFile.diagnostics.isEmpty)
        #expect(fromFile.feed.items.count == items)
        struct Chunks: AsyncSequence, Sendable {
            typealias Element = Data
            let data: Data
            struct AsyncIterator: AsyncIteratorProtocol {
                let data: Data
                var offset = 0
                mutating func next() async -> Data? {
                    guard offset < data.count else { return nil }
                    let end = Swift.min(offset + 1_000_003, data.count)
                    defer { offset = end }
                    return data.subdata(in: offset..<end)
                }
            }
            func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data) }
        }
        let streamed = try await FeedParser().parse(chunks: Chunks(data: data))
        #expect(streamed.feed == fromFile.feed)
        #expect(streamed.diagnostics.isEmpty)
    }

    @Test("a truncated document past 10 MB still reports the truncation, not the size")
    func largeTruncatedDocument() throws {
        let (data, items) = Self.largeRSS(atLeast: 10_200_000)
        let cut = data.prefix(data.count - 40)
        let result = try FeedParser().parse(cut)
        #expect(result.diagnostics.map(\.kind) == ["malformedXML"])
        #expect((result.diagnostics.first?.line ?? 0) >= items, "the error is at the end, not at the 10 MB mark")
        #expect(result.feed.items.count >= items - 1)
    }

    @Test("character data past the tree's limit stops the tree and is reported, never wrapping the 32-bit offsets")
    func textLimitStopsTheTree() throws {
        // The real limit is 4 GiB; the builder takes a lower one so that the guard runs on a small document.
        let xml = "<rss><channel><title>0123456789</title><item><title>\(String(repeating: "x", count: 5_000))</title></item></channel></rss>"
        for (limit, exceeded) in [(4_096, true), (100_000, false)] {
            let parser = XMLParser(data: Data(xml.utf8))
            parser.shouldProcessNamespaces = true
            let builder = FeedXMLTreeBuilder(documentURL: nil, maxDepth: 64, maxItems: nil, maxTextBytes: limit)
            parser.delegate = builder
            _ = parser.parse()
            parser.delegate = nil
            let tree = try #require(builder.finish())
            #expect(builder.exceededTextLimit == exceeded, "limit \(limit)")
            #expect(tree.text.count <= limit)
            // libxml2 may hand the long title over in pieces: some of it can be in before the limit stops the tree.
            if exceeded { #expect(tree.text.count < 5_010) } else { #expect(tree.text.count == 5_010) }
            #expect(tree.text.starts(with: Array("0123456789".utf8)))
        }
    }
}
