import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses RSS 0.90–2.0, RSS 1.0 (RDF), Atom 0.3/1.0 and JSON Feed 1.0/1.1 documents into one ``Feed`` model.
///
/// XML goes through Foundation's `XMLParser` (namespaces processed, external entities never loaded) after an
/// encoding and repair pre-pass; JSON Feed goes through `JSONDecoder`. The parser is a value type without
/// shared state: use one instance from any number of tasks.
public struct FeedParser: Sendable {
    /// Limits and options for a ``FeedParser``.
    public struct Configuration: Sendable, Hashable {
        /// The largest document accepted, in bytes (default 16 MiB). Larger input fails with `.tooLarge`.
        public var maxBytes: Int
        /// The deepest element nesting accepted (default 64). Deeper input fails with `.tooDeep`.
        public var maxDepth: Int
        /// Stop after this many items (`nil` = all). Nothing past the limit is built into the feed; the XML parser
        /// still reads to the end of the document, because stopping it from inside its callbacks is not safe.
        public var maxItems: Int?

        /// Creates a configuration.
        /// - Parameters:
        ///   - maxBytes: The largest document accepted, in bytes.
        ///   - maxDepth: The deepest element nesting accepted.
        ///   - maxItems: Stop after this many items; `nil` for no limit.
        /// - Returns: A configuration.
        public init(maxBytes: Int = 16 * 1_024 * 1_024, maxDepth: Int = 64, maxItems: Int? = nil) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxItems = maxItems
        }
    }

    /// The limits in effect.
    public let configuration: Configuration

    /// Whether every XML document goes through the repair pass before XMLParser reads it. Off, a document that may
    /// need no repair is parsed as it is first (``FeedParser/parseXML(inPlace:documentURL:diagnostics:)``); tests turn
    /// it on to compare the two ways.
    var alwaysRepairsFirst = false

    /// Creates a parser.
    /// - Parameters:
    ///   - configuration: Limits and options.
    /// - Returns: A parser.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Parses a complete document held in memory.
    /// - Parameters:
    ///   - data: The raw bytes, in any supported encoding.
    ///   - documentURL: The URL the document was fetched from; relative links are resolved against it.
    ///   - httpCharset: The HTTP `Content-Type` header or its `charset` value; overrides the XML declaration.
    /// - Returns: The feed and the diagnostics describing any repairs.
    /// - Throws: ``FeedParsingError`` when the document is too large, not a feed, or unrecoverably malformed.
    public func parse(_ data: Data, documentURL: URL? = nil, httpCharset: String? = nil) throws -> FeedParseResult {
        guard data.count <= configuration.maxBytes else {
            throw FeedParsingError(.tooLarge, "The document has \(data.count) bytes; the limit is \(configuration.maxBytes)")
        }
        // Plain UTF-8 XML that needs no decoding is parsed where it lies: copying it into the parser's own array
        // would be the only copy of the document made (≈ 1 instruction a byte).
        if httpCharset == nil, let result = try data.withUnsafeBytes({ raw -> FeedParseResult? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard FeedEncoding.isPlainUTF8XML(bytes) else { return nil }
            var diagnostics: [FeedDiagnostic] = []
            var feed = try parseXML(inPlace: bytes, documentURL: documentURL, diagnostics: &diagnostics)
            if let maxItems = configuration.maxItems, feed.items.count > maxItems {
                feed.items.removeSubrange(maxItems...)
            }
            return FeedParseResult(feed: feed, diagnostics: diagnostics, encoding: "utf-8")
        }) {
            return result
        }
        return try parseOwned(FeedEncoding.bytes(of: data), documentURL: documentURL, httpCharset: httpCharset)
    }

    /// Parses a document the parser may own: plain UTF-8 is used as it is, and the bytes are released once XMLParser
    /// has read them, before the feed is built (so the document, its tree and the feed are never all alive at once).
    func parseOwned(_ input: consuming [UInt8], documentURL: URL?, httpCharset: String?) throws -> FeedParseResult {
        guard input.count <= configuration.maxBytes else {
            throw FeedParsingError(.tooLarge, "The document has \(input.count) bytes; the limit is \(configuration.maxBytes)")
        }
        var decoded = try FeedEncoding.decode(input, httpCharset: httpCharset)
        input = []
        var diagnostics = decoded.diagnostics
        guard let first = decoded.bytes.first else {
            throw FeedParsingError(.notAFeed, "The document is empty")
        }
        var bytes: [UInt8] = []
        swap(&bytes, &decoded.bytes)
        var feed: Feed
        switch first {
        case UInt8(ascii: "{"):
            var mapper = FeedJSONMapper(documentURL: documentURL)
            feed = try mapper.map(Data(bytes))
            diagnostics += mapper.diagnostics
        case UInt8(ascii: "<"):
            feed = try parseXML(consume bytes, documentURL: documentURL, diagnostics: &diagnostics)
        default:
            throw FeedParsingError(.notAFeed, "The document is neither XML nor JSON (it starts with byte 0x\(String(first, radix: 16)))")
        }
        if let maxItems = configuration.maxItems, feed.items.count > maxItems {
            feed.items.removeSubrange(maxItems...)
        }
        return FeedParseResult(feed: feed, diagnostics: diagnostics, encoding: decoded.encoding)
    }

    /// Parses a local file.
    /// - Parameters:
    ///   - fileURL: The file to read.
    ///   - documentURL: The URL the file was downloaded from, for resolving relative links (file URLs are not used).
    /// - Returns: The feed and its diagnostics.
    /// - Throws: ``FeedParsingError`` with `.io` when the file cannot be read, `.tooLarge` when it exceeds the limit,
    ///   or any error of ``parse(_:documentURL:httpCharset:)``.
    public func parse(contentsOf fileURL: URL, documentURL: URL? = nil) throws -> FeedParseResult {
        let data: [UInt8]
        do {
            let size = try FileManager.default.attributesOfItem(atPath: fileURL.path)[.size] as? NSNumber
            if let size, size.intValue > configuration.maxBytes {
                throw FeedParsingError(.tooLarge, "The file has \(size.intValue) bytes; the limit is \(configuration.maxBytes)")
            }
            data = try Self.contents(of: fileURL)
        } catch let error as FeedParsingError {
            throw error
        } catch {
            throw FeedParsingError(.io, "Cannot read \(fileURL.path): \(error.localizedDescription)", underlying: FeedUnderlyingError(error))
        }
        return try parseOwned(data, documentURL: documentURL, httpCharset: nil)
    }

    /// The file's bytes, read straight into the array the parser works on (no `Data` copy or mapping beside it).
    static func contents(of fileURL: URL) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: fileURL)
        defer { try? handle.close() }
        var bytes: [UInt8] = []
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            if bytes.isEmpty, let size = try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.size] as? NSNumber {
                bytes.reserveCapacity(size.intValue)
            }
            bytes.append(contentsOf: chunk)
        }
        return bytes
    }
}
