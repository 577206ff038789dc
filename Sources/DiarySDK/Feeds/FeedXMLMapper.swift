import Foundation

/// Maps a ``FeedXMLNode`` tree onto the ``Feed`` model. Shared helpers live here; the format-specific
/// parts are in `FeedXMLMapper+RSS.swift` and `FeedXMLMapper+Atom.swift`.
struct FeedXMLMapper {
    var diagnostics: [FeedDiagnostic] = []

    /// Detects the format from the root element and maps the document.
    mutating func map(root: FeedXMLNode) throws -> Feed {
        switch (root.localName, root.ns) {
        case ("rss", .none), ("rss", .rss), ("rss", .other):
            // Trimmed on the bytes: Foundation's `trimmingCharacters(in:)` costs ≈ 100,000 instructions a parse on Linux.
            let version = root.attribute("version").map(FeedText.trim) ?? ""
            let format: FeedFormat
            if version == "0.90" { format = .rss090 } else if version.hasPrefix("0.9") { format = .rss09x } else { format = .rss20 }
            let channel = root.first("channel", root.ns) ?? root.elements.first { $0.localName == "channel" } ?? root
            return mapRSS(channel: channel, itemContainers: [channel, root], format: format, root: root)
        case ("RDF", .rdf), ("RDF", .none), ("RDF", .other):
            let isRSS090 = root.elements.contains { FeedNamespace.isRSS090($0.namespace) }
            let channel = root.elements.first { $0.localName == "channel" } ?? root
            return mapRSS(channel: channel, itemContainers: [root, channel], format: isRSS090 ? .rss090 : .rss10, root: root)
        case ("channel", .none), ("channel", .rss):
            return mapRSS(channel: root, itemContainers: [root], format: .rss09x, root: root)
        case ("feed", .atom10), ("feed", .none):
            let isOld = root.attribute("version")?.hasPrefix("0.") == true
            return mapAtom(feedNode: root, format: isOld ? .atom03 : .atom10)
        case ("feed", .atom03):
            return mapAtom(feedNode: root, format: .atom03)
        case ("feed", .other) where root.attribute("version")?.hasPrefix("0.") == true:
            return mapAtom(feedNode: root, format: .atom03)
        case ("html", _):
            throw FeedParsingError(.notAFeed, "The document is an HTML page, not a feed; use FeedDiscovery to find its feeds.", line: root.line)
        default:
            throw FeedParsingError(.unsupportedFormat, "Unknown root element <\(root.qualifiedName)> (namespace \"\(root.namespace)\").", line: root.line)
        }
    }

    // MARK: - Shared helpers

    mutating func date(_ node: FeedXMLNode?) -> Date? {
        guard let node else { return nil }
        // Most dates parse straight from the tree's bytes; a string is built only for the rest (translated month
        // names, the diagnostic).
        let range = node.textRange
        if !range.isEmpty,
           let date = node.tree.text.withUnsafeBufferPointer({ FeedDateParser.parse(utf8: UnsafeBufferPointer(rebasing: $0[range])) }) {
            return date
        }
        let raw = node.text
        guard let trimmed = FeedText.trimmed(raw) else { return nil }
        if let date = FeedDateParser.date(from: trimmed) { return date }
        diagnostics.append(FeedDiagnostic(kind: "invalidDate", severity: .warning,
                                          message: "Unparseable date \"\(trimmed.prefix(80))\" in <\(node.qualifiedName)>", line: node.line))
        return nil
    }

    func url(_ string: String?, _ node: FeedXMLNode) -> URL? {
        guard let string else { return nil }
        return FeedURLResolver.resolve(string, against: node.base)
    }

    /// ``url(_:_:)`` as the URL's absolute string, without building a `URL` for a plain absolute http(s) reference.
    func urlText(_ string: String?, _ node: FeedXMLNode) -> String? {
        guard let string else { return nil }
        return FeedURLResolver.resolveText(string, against: node.base)
    }

    func int64(_ string: String?) -> Int64? {
        guard let string = FeedText.trimmed(string) else { return nil }
        return Int64(string)
    }

    func int(_ string: String?) -> Int? {
        guard let string = FeedText.trimmed(string) else { return nil }
        return Int(string)
    }

    /// Parses RSS-style person strings: `mail@host (Name)`, `Name <mail@host>`, `mail@host`, `Name`.
    func person(fromRSS raw: String) -> FeedPerson? {
        guard let text = FeedText.collapsed(raw) else { return nil }
        // A plain name (the common case) holds none of `(`, `<` and `@`, which every other form needs: one byte scan.
        let plain = FeedText.withBytes(text) { bytes in
            !bytes.contains { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "@") }
        }
        if plain { return FeedPerson(name: text) }
        // Byte scans first: `Character` searches cost thousands of instructions, and most names have neither.
        if FeedText.offset(of: UInt8(ascii: "("), in: text) != nil, let open = text.firstIndex(of: "("), text.hasSuffix(")") {
            let before = FeedText.trimmed(String(text[..<open]))
            let inner = FeedText.trimmed(String(text[text.index(after: open)..<text.index(before: text.endIndex)]))
            if let before, FeedText.contains(before, "@"), !FeedText.contains(before, " ") { return FeedPerson(name: inner, email: before) }
            if let inner, FeedText.contains(inner, "@"), !FeedText.contains(inner, " ") { return FeedPerson(name: before, email: inner) }
        }
        if FeedText.offset(of: UInt8(ascii: "<"), in: text) != nil, let open = text.firstIndex(of: "<"), text.hasSuffix(">") {
            let before = FeedText.trimmed(String(text[..<open]))
            let inner = FeedText.trimmed(String(text[text.index(after: open)..<text.index(before: text.endIndex)]))
            if let inner, FeedText.contains(inner, "@") { return FeedPerson(name: before, email: inner) }
        }
        if FeedText.contains(text, "@"), !FeedText.contains(text, " ") { return FeedPerson(name: nil, email: text) }
        return FeedPerson(name: text)
    }

    /// Reserves the item's category array for the children named `category` or `subject` (any namespace or case, so
    /// at least as many as become categories) when there are several: appended one by one, two categories cost an
    /// array allocation, a second one and a copy.
    func reserveCategories(of node: FeedXMLNode, in item: inout FeedItem) {
        // Walked over the records directly: a node per child would retain and release the tree.
        let tree = node.tree
        var count = 0
        tree.elements.withUnsafeBufferPointer { elements in
            tree.nameKinds.withUnsafeBufferPointer { kinds in
                var cursor = Int(elements[node.index].firstChild)
                while cursor >= 0 {
                    let kind = kinds[Int(elements[cursor].nameIndex)]
                    if kind == .category || kind == .subject { count += 1 }
                    cursor = Int(elements[cursor].nextSibling)
                }
            }
        }
        guard count > 1 else { return }
        item.categoryDetails.reserveCapacity(count)
    }

    /// Maps Media RSS elements found directly under `node` or inside its `media:group` (and `media:content`) children,
    /// in document order. Iterative, with a stack of the groups being read, so nesting depth cannot exhaust the stack.
    func media(in node: FeedXMLNode, into item: inout FeedItem) {
        // Most documents use no Media RSS at all: then there is nothing to look for under any item.
        guard node.tree.hasMedia else { return }
        var levels: [FeedXMLNode.Elements] = [node.elements]
        while !levels.isEmpty {
            guard let child = levels[levels.count - 1].next() else {
                levels.removeLast()
                continue
            }
            guard child.ns == .media else { continue }
            switch child.localName {
            case "group":
                levels.append(child.elements)
            case "content":
                if let href = url(child.attribute("url"), child) {
                    item.media.append(FeedMedia(url: href, type: child.attribute("type"), medium: child.attribute("medium"),
                                                width: int(child.attribute("width")), height: int(child.attribute("height"))))
                }
                levels.append(child.elements)
            case "thumbnail":
                if let href = url(child.attribute("url"), child) {
                    let thumb = FeedMedia(url: href, type: nil, medium: "image",
                                          width: int(child.attribute("width")), height: int(child.attribute("height")))
                    if !item.thumbnails.contains(thumb) { item.thumbnails.append(thumb) }
                }
            case "category":
                if let term = FeedText.collapsed(child.text) {
                    item.categoryDetails.append(FeedCategory(term: term, scheme: child.attribute("scheme"), label: child.attribute("label")))
                }
            default:
                continue
            }
        }
    }

    /// Converts `itunes:duration` (`SS`, `MM:SS`, `HH:MM:SS`, fractional seconds allowed) to seconds.
    static func duration(_ raw: String?) -> TimeInterval? {
        guard let raw = FeedText.trimmed(raw) else { return nil }
        let parts = raw.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 3 else { return nil }
        var total = 0.0
        for part in parts {
            // Foundation's trimming bridges through NSString on Linux; most parts have nothing to trim.
            let plain = part.utf8.first.map { $0 < 0x80 && $0 != 0x20 && $0 != 0x09 } == true
                && part.utf8.last.map { $0 < 0x80 && $0 != 0x20 && $0 != 0x09 } == true
            guard let value = Double(plain ? String(part) : part.trimmingCharacters(in: .whitespaces)), value >= 0 else { return nil }
            total = total * 60 + value
        }
        return total
    }

    static func explicitFlag(_ raw: String?) -> Bool? {
        switch FeedText.trimmed(raw)?.lowercased() {
        case "yes", "true", "explicit": return true
        case "no", "false", "clean": return false
        default: return nil
        }
    }
}

extension FeedNamespace {
    static func isRSS090(_ uri: String) -> Bool {
        uri.lowercased().hasPrefix("http://my.netscape.com/rdf/simple/0.9")
    }
}
