import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

extension FeedParser {
    typealias XMLRun = (parserError: Error?, builder: FeedXMLTreeBuilder, tree: FeedXMLTree?, succeeded: Bool)

    /// Documents shorter than this go to XMLParser whole (`XMLParser(data:)`, one push into libxml2, ~3 % fewer
    /// instructions than pieces), longer ones in pieces from a stream: libxml2 refuses to look past 10,000,000 bytes
    /// of one input buffer.
    static let wholeDocumentLimit = 8_000_000

    /// - Parameters:
    ///   - bytes: The document as UTF-8.
    ///   The bytes are released once XMLParser has read them, before mapping.
    func parseXML(_ bytes: consuming [UInt8], documentURL: URL?, diagnostics: inout [FeedDiagnostic]) throws -> Feed {
        if let run = bytes.withUnsafeBufferPointer({ runUnrepaired($0, documentURL: documentURL) }) {
            bytes = []
            return try mapXML(run, diagnostics: &diagnostics)
        }
        var repaired = try FeedMarkupRepair.repair(bytes)
        bytes = []
        diagnostics += repaired.diagnostics
        let run = repaired.bytes.withUnsafeBufferPointer { runXML($0, documentURL: documentURL) }
        repaired.bytes = []
        return try mapXML(run, diagnostics: &diagnostics)
    }

    /// ``parseXML(_:documentURL:diagnostics:)`` on UTF-8 bytes the caller holds (a plain UTF-8 `Data`): XMLParser
    /// reads them in place unless the repair pass changes them.
    func parseXML(inPlace bytes: UnsafeBufferPointer<UInt8>, documentURL: URL?, diagnostics: inout [FeedDiagnostic]) throws -> Feed {
        if let run = runUnrepaired(bytes, documentURL: documentURL) { return try mapXML(run, diagnostics: &diagnostics) }
        var repaired = try FeedMarkupRepair.repair(in: bytes)
        diagnostics += repaired.diagnostics
        let run: XMLRun
        if let changed = repaired.bytes {
            run = changed.withUnsafeBufferPointer { runXML($0, documentURL: documentURL) }
            repaired.bytes = nil
        } else {
            run = runXML(bytes, documentURL: documentURL)
        }
        return try mapXML(run, diagnostics: &diagnostics)
    }

    /// XMLParser over the document as it is, when that gives what the repair pass and XMLParser would give; `nil`
    /// when the document must go through the repair pass (the caller then parses it again from the start).
    ///
    /// On a well-formed document the repair pass changes only three things: it removes the DOCTYPE (expanding the
    /// internal entities itself, within its budget), it maps numeric references to C1 controls (`&#146;`) to their
    /// windows-1252 characters, and it separates processing instructions without data (which crash XMLParser on
    /// Linux). Everything else it rewrites (HTML entities, bare `&`, forbidden control characters, a misplaced XML
    /// declaration, an unterminated CDATA section) makes XMLParser report an error. So a document with no DOCTYPE
    /// and no data-less instruction that XMLParser reads to the end without an error, and whose character data,
    /// attribute values and namespace URIs hold no C1 control, is exactly what the repair pass would have handed
    /// XMLParser. Anything else, and a run with an item limit (whose repair diagnostics cover the whole document),
    /// takes the repair pass: such documents pay for the unrepaired run up to XMLParser's error as well.
    private func runUnrepaired(_ bytes: UnsafeBufferPointer<UInt8>, documentURL: URL?) -> XMLRun? {
        guard !alwaysRepairsFirst, configuration.maxItems == nil, !FeedMarkupRepair.prologMayHoldDoctype(bytes),
              FeedMarkupRepair.separatingDatalessInstructions(bytes) == nil else { return nil }
        let run = runXMLParser(bytes, documentURL: documentURL)
        guard run.succeeded, run.parserError == nil, !run.builder.failed, !run.builder.exceededDepth,
              !run.builder.exceededTextLimit, !run.builder.stoppedAtMaxItems,
              let tree = run.tree, !tree.holdsC1Controls else { return nil }
        return run
    }

    /// XMLParser over `bytes`: with an item limit, the document up to the limit's last item first.
    private func runXML(_ bytes: UnsafeBufferPointer<UInt8>, documentURL: URL?) -> XMLRun {
        // With an item limit, the document up to the limit's last item is parsed first: XMLParser cannot be stopped
        // from its callbacks, and when the tree is complete within that prefix, the whole document would give the
        // same tree (every later event is ignored). Otherwise (the cut was early, or an error came first) the whole
        // document is parsed.
        if let maxItems = configuration.maxItems, let cut = Self.itemLimitEnd(bytes, items: maxItems) {
            let attempt = runXMLParser(UnsafeBufferPointer(rebasing: bytes[..<cut]), documentURL: documentURL)
            if attempt.builder.stoppedAtMaxItems { return attempt }
        }
        return runXMLParser(bytes, documentURL: documentURL)
    }

    /// The feed from a finished XMLParser run: limit errors, diagnostics, mapping.
    private func mapXML(_ run: XMLRun, diagnostics: inout [FeedDiagnostic]) throws -> Feed {
        let (parserError, builder, tree, succeeded) = run
        if builder.exceededDepth {
            throw FeedParsingError(.tooDeep, "Elements nest deeper than the limit of \(configuration.maxDepth)",
                                   line: builder.errorLine, column: builder.errorColumn)
        }
        if builder.exceededTextLimit {
            throw FeedParsingError(.tooLarge, "The document's character data passes \(FeedXMLTree.maxTextBytes) bytes, the most one parse holds")
        }
        if builder.stoppedAtMaxItems {
            diagnostics.append(FeedDiagnostic(kind: "maxItems", severity: .info,
                                              message: "Parsing stopped after \(builder.completedItems) items (maxItems)"))
        }
        let failed = (builder.failed || !succeeded || parserError != nil) && !builder.stoppedAtMaxItems
        let underlying = (builder.firstError ?? parserError).map { FeedUnderlyingError($0) }
        guard let root = tree?.root else {
            throw FeedParsingError(.malformedXML, "No root element could be read" + (underlying.map { ": \($0.description)" } ?? ""),
                                   line: builder.errorLine, column: builder.errorColumn, underlying: underlying)
        }
        var mapper = FeedXMLMapper()
        let feed = try mapper.map(root: root)
        diagnostics += mapper.diagnostics
        if failed {
            let where_ = builder.errorLine.map { " at line \($0), column \(builder.errorColumn ?? 0)" } ?? ""
            guard builder.completedItems > 0 || builder.completedShallowElements > 0 else {
                throw FeedParsingError(.malformedXML, "The XML is not well-formed\(where_) and nothing usable precedes the error",
                                       line: builder.errorLine, column: builder.errorColumn, underlying: underlying)
            }
            diagnostics.append(FeedDiagnostic(kind: "malformedXML", severity: .repaired,
                                              message: "The XML is not well-formed\(where_); kept the \(feed.items.count) items parsed before the error",
                                              line: builder.errorLine))
        }
        return feed
    }

    /// Runs XMLParser over the first `count` bytes of `bytes` into a new tree builder.
    ///
    /// A large document is read from a stream, in pieces: handed the whole document as `Data`, libxml2 (2.9, as on
    /// Linux) stops at 10,000,000 bytes with "Huge input lookup" (`XML_MAX_LOOKUP_LIMIT`; XMLParser does not set
    /// `XML_PARSE_HUGE`), which made every larger well-formed feed look truncated. Fed in pieces, its input buffer
    /// holds only the unparsed rest of the current piece, so neither the limit nor a second copy of the document
    /// applies. Both ways XMLParser reads the bytes in place, and nothing refers to them after this returns.
    private func runXMLParser(_ input: UnsafeBufferPointer<UInt8>, documentURL: URL?) -> XMLRun {
        let count = input.count
        do {
            let parser: XMLParser
            if count < Self.wholeDocumentLimit, let base = input.baseAddress {
                parser = XMLParser(data: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: count, deallocator: .none))
            } else {
                parser = XMLParser(stream: FeedByteInputStream.make(input))
            }
            parser.shouldProcessNamespaces = true
            parser.shouldReportNamespacePrefixes = true
            parser.shouldResolveExternalEntities = false
            let builder = FeedXMLTreeBuilder(documentURL: documentURL, maxDepth: configuration.maxDepth, maxItems: configuration.maxItems,
                                             expectedBytes: count)
            parser.delegate = builder
            let succeeded = parser.parse()
            let tree = builder.finish()
            parser.delegate = nil
            return (parser.parserError, builder, tree, succeeded)
        }
    }

    /// The index just past the `items`-th end tag named `item` or `entry` (any prefix), or `nil` when the document has
    /// fewer (or the limit is not positive). Only a guess at where the tree will be complete: end tags inside CDATA
    /// or comments, or of nested items, make it early, and the caller then parses the whole document.
    static func itemLimitEnd(_ bytes: UnsafeBufferPointer<UInt8>, items: Int) -> Int? {
        guard items > 0 else { return nil }
        var seen = 0
        var i = 0
        let n = bytes.count
        while i + 1 < n {
            guard bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "/") else {
                i += 1
                continue
            }
            var end = i + 2
            var localStart = end
            while end < n, bytes[end] != UInt8(ascii: ">"), !FeedXMLDeclaration.isBlank(bytes[end]), bytes[end] != UInt8(ascii: "<") {
                if bytes[end] == UInt8(ascii: ":") { localStart = end + 1 }
                end += 1
            }
            let name = bytes[localStart..<end]
            if name.elementsEqual("item".utf8) || name.elementsEqual("entry".utf8) {
                while end < n, FeedXMLDeclaration.isBlank(bytes[end]) { end += 1 }
                if end < n, bytes[end] == UInt8(ascii: ">") {
                    seen += 1
                    if seen == items { return end + 1 < n ? end + 1 : nil }
                }
            }
            i = max(end, i + 2)
        }
        return nil
    }
}
