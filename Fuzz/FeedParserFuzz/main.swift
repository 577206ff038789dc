import Foundation

// libFuzzer entry point for the feed parser. scripts/fuzz-feeds.sh compiles this file together with the parser's
// sources into one module, so the parser's internal types are used directly. Any input may be rejected with an
// error; none may crash, and the XML parser must never be handed a declaration other than the UTF-8 one.

/// Charset labels a server may send: one per encoding family the parser decodes, and ones it does not know.
private let httpCharsets: [String?] = [
    nil, "utf-8", "us-ascii", "iso-8859-1", "windows-1252", "utf-16", "utf-16le", "utf-16be", "utf-32", "utf-32le",
    "utf-32be", "euc-kr", "gb2312", "big5", "shift_jis", "euc-jp", "iso-2022-jp", "koi8-r", "koi8-u", "iso-8859-15",
    "macintosh", "iso-8859-5", "windows-1251", "windows-1258", "text/xml; charset=ks_c_5601-1987", "x-unknown", "eS",
]

/// Parses one input twice: with the defaults, as a document fetched without a charset; then with small limits (so
/// the depth and item limits end the tree early) and an HTTP charset chosen by the input's last byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func feedParserFuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let data = Data(bytes: start, count: count)
    let charset = httpCharsets[Int(start[count - 1]) % httpCharsets.count]
    for httpCharset in [nil, charset] {
        if let decoded = try? FeedEncoding.decode(data, httpCharset: httpCharset), FeedXMLDeclaration.find(in: decoded.bytes[...]) != nil {
            precondition(decoded.bytes.starts(with: FeedEncoding.utf8Declaration), "a declaration other than the UTF-8 one reaches XMLParser")
        }
    }
    _ = try? FeedParser().parse(data, documentURL: URL(string: "http://127.0.0.1/feed.xml"))
    let limited = FeedParser(configuration: .init(maxBytes: 1 << 20, maxDepth: 6, maxItems: 1))
    _ = try? limited.parse(data, httpCharset: charset)
    return 0
}
