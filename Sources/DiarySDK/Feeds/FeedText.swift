import Foundation

/// Resolves possibly relative, possibly sloppy URL strings found in feeds.
enum FeedURLResolver {
    private static let allowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.formUnion(.urlPathAllowed)
        set.formUnion(.urlFragmentAllowed)
        set.insert(charactersIn: "#%[]")
        return set
    }()

    /// Resolves `raw` against `base`; percent-encodes spaces and non-ASCII characters when needed.
    static func resolve(_ raw: String, against base: URL?) -> URL? {
        let string = FeedText.trim(raw)
        guard !string.isEmpty, string.utf8.count < 8_192 else { return nil }
        if let url = URL(string: string, relativeTo: base) { return url.absoluteURL }
        if let encoded = string.addingPercentEncoding(withAllowedCharacters: allowed),
           let url = URL(string: encoded, relativeTo: base) {
            return url.absoluteURL
        }
        return nil
    }
}

/// Whitespace normalisation and markup serialisation helpers.
enum FeedText {
    /// Trims; returns `nil` for an empty result.
    static func trimmed(_ string: String?) -> String? {
        guard let string else { return nil }
        let result = trim(string)
        return result.isEmpty ? nil : result
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without the round trip through `NSString` and UTF-16 that
    /// makes Foundation's version cost milliseconds on a long HTML body on Linux.
    static func trim(_ string: String) -> String {
        // Fast path: an ASCII non-space byte at both ends means there is nothing to trim.
        let utf8 = string.utf8
        guard let firstByte = utf8.first, let lastByte = utf8.last else { return string }
        if firstByte < 0x80, lastByte < 0x80, !isASCIISpace(firstByte), !isASCIISpace(lastByte) { return string }
        let scalars = string.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isWhitespace($0) }) ?? first
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return string }
        return String(scalars[first...last])
    }

    /// Whether `collapsed` would return the string unchanged: no leading, trailing or repeated spaces and no tabs or
    /// line breaks (the common case for titles and names, checked without building a copy).
    static func isAlreadyCollapsed(_ string: String) -> Bool {
        var copy = string
        return copy.withUTF8 { bytes -> Bool in
            var previousSpace = true
            for byte in bytes {
                switch byte {
                case 0x20:
                    if previousSpace { return false }
                    previousSpace = true
                case 0x09, 0x0A, 0x0D:
                    return false
                default:
                    previousSpace = false
                }
            }
            return !previousSpace || bytes.isEmpty
        }
    }

    /// Whether `haystack` contains `needle`, comparing UTF-8 bytes (Foundation's `contains` bridges to `NSString`).
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        var haystack = haystack
        var needle = needle
        return haystack.withUTF8 { h in
            needle.withUTF8 { n in
                guard n.count > 0 else { return true }
                guard h.count >= n.count else { return false }
                let first = n[0]
                outer: for i in 0...(h.count - n.count) where h[i] == first {
                    for k in 1..<n.count where h[i + k] != n[k] { continue outer }
                    return true
                }
                return false
            }
        }
    }

    /// The UTF-8 offset of the first `:` in `string`, if any (names are short; this avoids the generic collection
    /// algorithms, which cost hundreds of instructions per call on `String.UTF8View`).
    @inline(__always)
    static func colonOffset(_ string: String) -> Int? {
        var string = string
        return string.withUTF8 { bytes -> Int? in
            for k in 0..<bytes.count where bytes[k] == 0x3A { return k }
            return nil
        }
    }

    /// The UTF-8 offset of the first `byte` in `string`, if any.
    static func offset(of byte: UInt8, in string: String) -> Int? {
        var string = string
        return string.withUTF8 { bytes -> Int? in
            for k in 0..<bytes.count where bytes[k] == byte { return k }
            return nil
        }
    }

    /// `string.lowercased()` for the ASCII names of elements, without allocating when there is nothing to lower.
    static func lowercasedName(_ string: String) -> String {
        var copy = string
        // 0: nothing to lower; 1: ASCII with capitals (lowered here); 2: non-ASCII (Unicode lowercasing).
        let kind = copy.withUTF8 { bytes -> Int in
            var kind = 0
            for byte in bytes {
                if byte >= 0x80 { return 2 }
                if byte >= 0x41 && byte <= 0x5A { kind = 1 }
            }
            return kind
        }
        switch kind {
        case 0: return string
        case 1:
            return copy.withUTF8 { bytes in
                String(unsafeUninitializedCapacity: bytes.count) { target in
                    for k in 0..<bytes.count {
                        let byte = bytes[k]
                        target[k] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                    }
                    return bytes.count
                }
            }
        default: return string.lowercased()
        }
    }

    @inline(__always)
    static func isASCIISpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }

    /// Whitespace and newlines as `CharacterSet.whitespacesAndNewlines` counts them.
    @inline(__always)
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value == 0x20 || (scalar.value >= 0x09 && scalar.value <= 0x0D) }
        return scalar.properties.isWhitespace
    }

    /// Trims and collapses every internal whitespace run to one space (for titles and names).
    static func collapsed(_ string: String?) -> String? {
        guard let string else { return nil }
        if isAlreadyCollapsed(string) { return string.isEmpty ? nil : string }
        // On the UTF-8 bytes: the four separators are single ASCII bytes, which never occur inside a multi-byte
        // sequence, so this is the same as walking the scalars.
        var copy = string
        let out: [UInt8] = copy.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var pendingSpace = false
            for byte in bytes {
                if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D {
                    pendingSpace = !out.isEmpty
                } else {
                    if pendingSpace { out.append(0x20) }
                    pendingSpace = false
                    out.append(byte)
                }
            }
            return out
        }
        return out.isEmpty ? nil : String(decoding: out, as: UTF8.self)
    }

    static let voidElements: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                                            "param", "source", "track", "wbr"]

    static func escapeText(_ string: String, into out: inout String) {
        for character in string {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
    }

    static func escapeAttribute(_ string: String, into out: inout String) {
        for character in string {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
    }

    /// Serialises an element's children back to markup (XHTML elements lose their prefix).
    static func innerMarkup(of node: FeedXMLNode) -> String {
        var out: [UInt8] = []
        appendInnerMarkup(of: node, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the children of `node` as markup: the character data between child elements straight from the tree's
    /// text buffer (escaped), the child elements re-serialised.
    static func appendInnerMarkup(of node: FeedXMLNode, into out: inout [UInt8]) {
        let tree = node.tree
        var position = tree.elements[node.index].textStart
        for child in node.elements {
            let start = tree.elements[child.index].textStart
            if start > position { appendEscapedText(tree, position..<start, into: &out) }
            serialize(child, into: &out)
            position = tree.elements[child.index].textEnd
        }
        let end = tree.elements[node.index].textEnd
        if end > position { appendEscapedText(tree, position..<end, into: &out) }
    }

    /// Escapes `&`, `<` and `>` in one run of character data. Bytes are escaped directly when every such byte stands
    /// between ASCII neighbours (so it is a character of its own); otherwise the run goes through ``escapeText(_:into:)``,
    /// which matches whole characters, as before.
    static func appendEscapedText(_ tree: FeedXMLTree, _ range: Range<Int>, into out: inout [UInt8]) {
        tree.text.withUnsafeBufferPointer { all in
            let b = UnsafeBufferPointer(rebasing: all[range])
            var byteSafe = true
            for k in 0..<b.count where b[k] == 0x26 || b[k] == 0x3C || b[k] == 0x3E {
                if (k > 0 && b[k - 1] >= 0x80) || (k + 1 < b.count && b[k + 1] >= 0x80) {
                    byteSafe = false
                    break
                }
            }
            guard byteSafe else {
                var escaped = ""
                escapeText(String(decoding: b, as: UTF8.self), into: &escaped)
                out.append(contentsOf: escaped.utf8)
                return
            }
            var copied = 0
            for k in 0..<b.count where b[k] == 0x26 || b[k] == 0x3C || b[k] == 0x3E {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<k]))
                switch b[k] {
                case 0x26: out.append(contentsOf: "&amp;".utf8)
                case 0x3C: out.append(contentsOf: "&lt;".utf8)
                default: out.append(contentsOf: "&gt;".utf8)
                }
                copied = k + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<b.count]))
        }
    }

    static func serialize(_ node: FeedXMLNode, into out: inout [UInt8]) {
        let name = node.ns == .xhtml ? node.localName : node.qualifiedName
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: name.utf8)
        var pairs = node.attributes.map { ($0.qualifiedName, $0.value) }
        for (prefix, uri) in node.declarations where node.ns != .xhtml {
            pairs.append((prefix.isEmpty ? "xmlns" : "xmlns:" + prefix, uri))
        }
        pairs.sort { $0.0 < $1.0 }
        for (key, value) in pairs {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: key.utf8)
            out.append(contentsOf: "=\"".utf8)
            var value = value
            if FeedHTMLURLRewriter.urlAttributes.contains(key.lowercased()), let base = node.base,
               let resolved = FeedHTMLURLRewriter.absolute(value, base) {
                value = resolved.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            }
            var escaped = ""
            escapeAttribute(value, into: &escaped)
            out.append(contentsOf: escaped.utf8)
            out.append(UInt8(ascii: "\""))
        }
        if node.isEmpty, voidElements.contains(name.lowercased()) {
            out.append(contentsOf: " />".utf8)
            return
        }
        out.append(UInt8(ascii: ">"))
        appendInnerMarkup(of: node, into: &out)
        out.append(contentsOf: "</".utf8)
        out.append(contentsOf: name.utf8)
        out.append(UInt8(ascii: ">"))
    }

    /// Character data when the element holds only text, re-serialised markup when it holds elements.
    /// Relative URLs inside the HTML are resolved against the element's base.
    static func content(of node: FeedXMLNode) -> String {
        node.hasElementChildren ? innerMarkup(of: node) : html(node.text, node)
    }

    /// An HTML string from `node`, with relative URLs resolved against the node's base.
    static func html(_ string: String, _ node: FeedXMLNode) -> String {
        FeedHTMLURLRewriter.resolve(string, against: node.base)
    }
}
