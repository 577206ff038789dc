// Feed parser throughput: DiarySDK's FeedParser against a bare XMLParser whose delegate only accumulates each
// element's text, configured as FeedParser must configure it (namespaces processed, prefixes reported, external
// entities off), on the same documents, side by side in one run.
//
//     swift run -c release --package-path Benchmarks --scratch-path Benchmarks/.build-feedbench FeedBenchmarks
//
// Other modes (for valgrind and for memory):
//     --profile <style> <runs> [--bare | --bare-prefixes]   one side only, on a generated style or `real`
//     --write <style> <file>                                write a generated document (`podcast:<MB>` for a large one)
//     --profile-file <file> <runs> [--bare-prefixes]         one side only, on a file read into memory first
//     --memory <file>                                       peak resident memory of one parse(contentsOf:)
//
// Real feeds come from $DIARYSDK_FEEDS_DIR/real, else <repo>/../shared/feeds/real.
import DiarySDK
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The baseline: XMLParser with the same settings as FeedParser (namespaces on, external entities off), collecting
/// every element's text and nothing else.
final class TextAccumulator: NSObject, XMLParserDelegate {
    var stack: [String] = []
    var elements = 0
    var characters = 0

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        stack.append("")
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1] += string }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if !stack.isEmpty { stack[stack.count - 1] += String(decoding: CDATABlock, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let text = stack.removeLast()
        elements += 1
        characters += text.utf8.count
    }
}

/// `reportPrefixes`: also `shouldReportNamespacePrefixes`, which FeedParser needs (prefix scopes for attributes and
/// re-serialised markup) and which makes XMLParser build and walk a prefix dictionary for every element.
func bareParse(_ data: Data, reportPrefixes: Bool = false) -> Int {
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    parser.shouldReportNamespacePrefixes = reportPrefixes
    parser.shouldResolveExternalEntities = false
    let delegate = TextAccumulator()
    parser.delegate = delegate
    _ = parser.parse()
    return delegate.elements + delegate.characters
}

/// The 16 MiB default is for untrusted input; the memory mode parses documents up to 64 MB.
func feedParse(_ data: Data, _ parser: FeedParser) -> Int {
    (try? parser.parse(data).feed.items.count) ?? -1
}

// MARK: - Documents

func generated(_ style: String) -> Data {
    let paragraph = "Today I learned how <code>async let</code> works &amp; why the <em>task tree</em> matters. "
    let html = "<p>\(paragraph)</p><ul><li>One</li><li>Two &amp; three</li></ul><p><a href=\"https://example.com/x?a=1&amp;b=2\">link</a> <img src=\"/i.png\"/></p>"
    func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
    var out = ""
    switch style {
    case "atom":
        out += "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Bench</title><id>urn:bench</id><updated>2026-03-10T12:00:00Z</updated><link rel=\"alternate\" href=\"https://example.com/\"/>\n"
        for i in 0..<1_000 {
            out += "<entry><title>Post number \(i)</title><id>urn:bench:\(i)</id><link rel=\"alternate\" href=\"https://example.com/posts/\(i)\"/>"
            out += "<published>2026-03-\(10 - i % 9)T1\(i % 10):00:00+09:00</published><updated>2026-03-10T12:00:00Z</updated>"
            out += "<author><name>Alice</name></author><category term=\"swift\"/><category term=\"til\"/>"
            out += "<summary>Summary of post \(i)</summary><content type=\"html\">\(escaped(html + html))</content></entry>\n"
        }
        out += "</feed>\n"
    default:
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"><channel><title>Bench</title><link>https://example.com/</link><description>d</description>\n"
        for i in 0..<1_000 {
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

/// A podcast feed of about `megabytes` MB: channel metadata, then items with iTunes fields, an enclosure and an
/// HTML show-notes description in CDATA (the shape of large real podcast feeds), written in pieces.
func writePodcast(megabytes: Int, to url: URL) throws {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var written = 0
    func write(_ s: String) throws {
        let data = Data(s.utf8)
        try handle.write(contentsOf: data)
        written += data.count
    }
    try write("""
    <?xml version="1.0" encoding="UTF-8"?>
    <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:atom="http://www.w3.org/2005/Atom">
    <channel><title>Large Podcast</title><link>https://podcast.example/</link><atom:link rel="self" href="https://podcast.example/feed.xml"/>
    <description>A long-running show.</description><itunes:author>Host</itunes:author><itunes:image href="https://podcast.example/art.jpg"/>
    <itunes:category text="Technology"><itunes:category text="Software How-To"/></itunes:category>

    """)
    let notes = (0..<12).map { "<p>Segment \($0): we talk about <a href=\"https://example.com/\($0)?a=1&b=2\">links</a> &amp; <em>things</em>.</p>" }.joined()
    var i = 0
    while written < megabytes * 1_000_000 {
        var chunk = ""
        for _ in 0..<100 {
            chunk += "<item><title>Episode \(i): a title of some length</title><link>https://podcast.example/episodes/\(i)</link>"
            chunk += "<guid isPermaLink=\"false\">podcast-episode-\(i)</guid><pubDate>Tue, 0\(1 + i % 9) Mar 2026 1\(i % 10):00:00 +0000</pubDate>"
            chunk += "<itunes:duration>1:0\(i % 10):1\(i % 10)</itunes:duration><itunes:episode>\(i)</itunes:episode><itunes:explicit>no</itunes:explicit>"
            chunk += "<enclosure url=\"https://cdn.podcast.example/audio/\(i).mp3\" length=\"\(50_000_000 + i)\" type=\"audio/mpeg\"/>"
            chunk += "<itunes:summary>Summary of episode \(i).</itunes:summary><description><![CDATA[\(notes)]]></description></item>\n"
            i += 1
        }
        try write(chunk)
    }
    try write("</channel></rss>\n")
}

/// Peak resident memory so far, in bytes (`ru_maxrss`: kilobytes on Linux, bytes on Apple platforms).
func peakResidentBytes() -> Int {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss)
    #else
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Int(usage.ru_maxrss) * 1_024
    #endif
}

func realFeedsDirectory() -> URL? {
    let fm = FileManager.default
    if let dir = ProcessInfo.processInfo.environment["DIARYSDK_FEEDS_DIR"], !dir.isEmpty {
        return URL(fileURLWithPath: dir).appendingPathComponent("real")
    }
    // Benchmarks/Sources/FeedBenchmarks/main.swift → <repo>/../shared/feeds/real
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let url = repo.appendingPathComponent("../shared/feeds/real").standardizedFileURL
    return fm.fileExists(atPath: url.path) ? url : nil
}

/// The XML files of the real-feed fixtures (the JSON Feeds are left out: the baseline is an XML parser).
func realFeeds(each: (String, Data) -> Void = { _, _ in }) -> [Data] {
    guard let dir = realFeedsDirectory(),
          let files = try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() else { return [] }
    var all: [Data] = []
    for file in files where !file.hasSuffix(".json") && file.contains("__") {
        guard let data = try? Data(contentsOf: dir.appendingPathComponent(file)) else { continue }
        all.append(data)
        each(file, data)
    }
    return all
}

// MARK: - Measurement

/// Median seconds per run of `body`, alternating nothing else; at least `minRuns` runs and about `budget` seconds.
func measure(minRuns: Int = 7, budget: Double = 1.5, _ body: () -> Int) -> Double {
    var sink = 0
    for _ in 0..<2 { sink &+= body() }
    var times: [Double] = []
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(budget * 1e9)
    while times.count < minRuns || DispatchTime.now().uptimeNanoseconds < deadline {
        let start = DispatchTime.now().uptimeNanoseconds
        sink &+= body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        if times.count >= 200 { break }
    }
    if sink == Int.min { print("") }
    times.sort()
    return times[times.count / 2]
}

struct Row {
    var name: String
    var bytes: Int
    var items: Int
    var feedParser: Double
    var bare: Double
}

func run(_ name: String, _ documents: [Data]) -> Row {
    let parser = FeedParser()
    let bytes = documents.reduce(0) { $0 + $1.count }
    let items = documents.reduce(0) { $0 + max(0, feedParse($1, parser)) }
    // Interleave the two sides so machine noise hits both alike. The bare side reports prefixes, as FeedParser must.
    var feedTimes: [Double] = []
    var bareTimes: [Double] = []
    for _ in 0..<3 {
        feedTimes.append(measure { documents.reduce(0) { $0 &+ feedParse($1, parser) } })
        bareTimes.append(measure { documents.reduce(0) { $0 &+ bareParse($1, reportPrefixes: true) } })
    }
    return Row(name: name, bytes: bytes, items: items, feedParser: feedTimes.sorted()[1], bare: bareTimes.sorted()[1])
}

func mbps(_ bytes: Int, _ seconds: Double) -> String {
    String(format: "%.1f", Double(bytes) / 1_048_576 / seconds)
}

let arguments = CommandLine.arguments
if let index = arguments.firstIndex(of: "--write"), arguments.count > index + 2 {
    let style = arguments[index + 1]
    let url = URL(fileURLWithPath: arguments[index + 2])
    if style.hasPrefix("podcast:"), let megabytes = Int(style.dropFirst(8)) {
        try writePodcast(megabytes: megabytes, to: url)
    } else {
        try generated(style).write(to: url)
    }
    exit(0)
}
if let index = arguments.firstIndex(of: "--profile-file"), arguments.count > index + 2 {
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[index + 1]))
    let runs = Int(arguments[index + 2]) ?? 1
    let bare = arguments.contains("--bare-prefixes")
    var sink = 0
    for _ in 0..<runs { sink &+= bare ? bareParse(data, reportPrefixes: true) : feedParse(data, FeedParser()) }
    print("parsed \(runs) times: \(sink)")
    exit(0)
}
if let index = arguments.firstIndex(of: "--memory"), arguments.count > index + 1 {
    let url = URL(fileURLWithPath: arguments[index + 1])
    let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    let before = peakResidentBytes()
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try FeedParser(configuration: .init(maxBytes: 64_000_000)).parse(contentsOf: url)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let peak = peakResidentBytes() - before
    print(String(format: "document %.1f MB, %d items, %d diagnostics, %.2f s; peak resident memory +%.1f MB (%.2f× the document)",
                 Double(size) / 1e6, result.feed.items.count, result.diagnostics.count, seconds, Double(peak) / 1e6,
                 Double(peak) / Double(max(size, 1))))
    exit(0)
}

// `--profile <style> <runs> [--bare | --bare-prefixes]`: only FeedParser (or the bare delegate, optionally with namespace
// prefixes reported) on one generated style, for a profiler such as `valgrind --tool=callgrind`. Run it with 1 and with
// 3 runs and halve the difference to get the instructions of one parse without the document generation.
// The style `real` parses the real feeds back to back.
if let index = CommandLine.arguments.firstIndex(of: "--profile"), CommandLine.arguments.count > index + 2 {
    let style = CommandLine.arguments[index + 1]
    let documents = style == "real" ? realFeeds() : [generated(style)]
    let runs = Int(CommandLine.arguments[index + 2]) ?? 1
    let parser = FeedParser()
    let bare = CommandLine.arguments.contains("--bare")
    let prefixes = CommandLine.arguments.contains("--bare-prefixes")
    var sink = 0
    for _ in 0..<runs {
        for data in documents {
            sink &+= prefixes ? bareParse(data, reportPrefixes: true) : bare ? bareParse(data) : feedParse(data, parser)
        }
    }
    print("parsed \(runs) times: \(sink)")
    exit(0)
}

var rows: [Row] = []
for style in ["rss-cdata", "rss-escaped", "atom"] {
    rows.append(run("\(style) (1,000 items)", [generated(style)]))
}
let all = realFeeds(each: { file, data in
    if CommandLine.arguments.contains("--each") { rows.append(run("real: \(file)", [data])) }
})
if all.isEmpty {
    print("note: real feeds not found; set DIARYSDK_FEEDS_DIR")
} else {
    rows.append(run("real feeds (\(all.count) XML files)", all))
}

print("| Document | Size | Items | FeedParser MB/s | bare XMLParser + prefixes MB/s | ratio |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for row in rows {
    let ratio = String(format: "%.2f×", row.bare / row.feedParser)
    print("| \(row.name) | \(String(format: "%.0f", Double(row.bytes) / 1024)) KiB | \(row.items) | \(mbps(row.bytes, row.feedParser)) | \(mbps(row.bytes, row.bare)) | \(ratio) |")
}
