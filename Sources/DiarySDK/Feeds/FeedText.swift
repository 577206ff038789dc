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
        // Without a base, `absoluteURL` would return the URL itself.
        guard let base else { return URL(string: string) ?? encoded(string).flatMap { URL(string: $0) } }
        if let url = URL(string: string, relativeTo: base) { return url.absoluteURL }
        if let encoded = encoded(string), let url = URL(string: encoded, relativeTo: base) {
            return url.absoluteURL
        }
        return nil
    }

    /// ``resolve(_:against:)`` as the resolved URL's absolute string, without parsing a `URL` when `raw` is a plain
    /// absolute `http`/`https` reference (see ``FeedURLText/isPlainAbsoluteHTTP(_:)``): the absolute string of such a
    /// reference is the reference itself, with or without a base.
    static func resolveText(_ raw: String, against base: URL?) -> String? {
        // A plain reference holds no blank, so trimming would hand it back as it is.
        if raw.utf8.count < 8_192, FeedURLText.isPlainAbsoluteHTTP(raw) { return raw }
        let string = FeedText.trim(raw)
        guard !string.isEmpty, string.utf8.count < 8_192 else { return nil }
        if FeedURLText.isPlainAbsoluteHTTP(string) { return string }
        return resolve(string, against: base)?.absoluteString
    }

    private static func encoded(_ string: String) -> String? {
        string.addingPercentEncoding(withAllowedCharacters: allowed)
    }
}

/// URLs the model keeps as their absolute strings (``FeedItem/link``, ``FeedLink/href``).
enum FeedURLText {
    /// What a stored string that `URL(string:)` refuses reads back as. Never used for what the parser stores (every
    /// stored string is a `URL`'s `absoluteString` or passed ``isPlainAbsoluteHTTP(_:)``); it keeps the getters total.
    private static let unparseable = URL(string: "about:blank")!

    /// The `URL` of a stored absolute string.
    static func url(_ text: String) -> URL {
        URL(string: text) ?? unparseable
    }

    /// Whether `string` is an absolute `http` or `https` URI that `URL(string:)` accepts as it is and that resolving
    /// against any base leaves unchanged: a lowercase scheme, `//`, a host of ASCII letters, digits, `-` and `.`
    /// (starting with a letter or digit), an optional port of digits, then only RFC 3986 path, query and fragment
    /// characters (`%` followed by two hex digits, at most one `#`), and no dot segment (`/./`, `/../`, or `/.` or `/..`
    /// before the end of the path). Anything else returns `false` and goes through `URL`.
    static func isPlainAbsoluteHTTP(_ string: String) -> Bool {
        FeedText.withBytes(string) { b in
            let n = b.count
            var i: Int
            if n > 7, b[0] == 0x68, b[1] == 0x74, b[2] == 0x74, b[3] == 0x70 {  // "http"
                i = 4
                if b[i] == 0x73 { i += 1 }  // "s"
            } else {
                return false
            }
            guard i + 3 <= n, b[i] == 0x3A, b[i + 1] == 0x2F, b[i + 2] == 0x2F else { return false }  // "://"
            i += 3
            // Host.
            let hostStart = i
            // Letters, digits, `-` and `.`, as two 64-bit sets for the bytes below 0x40 and 0x40–0x7F.
            let hostLow: UInt64 = 0x03FF_6000_0000_0000
            let hostHigh: UInt64 = 0x07FF_FFFE_07FF_FFFE
            while i < n, b[i] < 0x80, ((b[i] < 0x40 ? hostLow : hostHigh) >> UInt64(b[i] & 0x3F)) & 1 != 0 { i += 1 }
            guard i > hostStart, isAlphanumeric(b[hostStart]) else { return false }
            // Port.
            if i < n, b[i] == 0x3A {
                i += 1
                let portStart = i
                while i < n, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
                guard i > portStart, i - portStart <= 5 else { return false }
            }
            // Path, query and fragment: the authority must end here.
            if i < n, b[i] != 0x2F, b[i] != 0x3F, b[i] != 0x23 { return false }
            var inPath = true
            var sawFragment = false
            // The bytes that need no further look (`pchar` without `%`: letters, digits, `-._~!$&'()*+,;=:@`), as two
            // 64-bit sets for the bytes below 0x40 and 0x40–0x7F.
            let plainLow: UInt64 = 0x2FFF_7FD2_0000_0000
            let plainHigh: UInt64 = 0x47FF_FFFE_87FF_FFFF
            while i < n {
                let byte = b[i]
                if byte < 0x80, ((byte < 0x40 ? plainLow : plainHigh) >> UInt64(byte & 0x3F)) & 1 != 0 {
                    i += 1
                    continue
                }
                switch byte {
                case 0x25:  // "%"
                    guard i + 2 < n, isHex(b[i + 1]), isHex(b[i + 2]) else { return false }
                    i += 3
                    continue
                case 0x23:  // "#"
                    if sawFragment { return false }
                    sawFragment = true
                    inPath = false
                case 0x3F:  // "?"
                    inPath = false
                case 0x2F:  // "/": a dot segment may follow
                    if inPath, i + 1 < n, b[i + 1] == 0x2E {
                        let next = i + 2 < n ? b[i + 2] : 0x2F
                        if next == 0x2F || next == 0x3F || next == 0x23 { return false }
                        if next == 0x2E {
                            let after = i + 3 < n ? b[i + 3] : 0x2F
                            if after == 0x2F || after == 0x3F || after == 0x23 { return false }
                        }
                    }
                default:
                    return false
                }
                i += 1
            }
            return true
        }
    }

    @inline(__always)
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    @inline(__always)
    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }
}

/// Whitespace normalisation and markup serialisation helpers.
enum FeedText {
    /// Calls `body` with the UTF-8 bytes of `string` in place. Native strings (all the parser makes) lend their
    /// storage without the copy, retain and uniqueness check of a `var` copy's `withUTF8`; other strings are made
    /// contiguous first.
    @inline(__always)
    static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = string
        return copy.withUTF8(body)
    }

    /// Trims; returns `nil` for an empty result.
    static func trimmed(_ string: String?) -> String? {
        guard let string else { return nil }
        let result = trim(string)
        return result.isEmpty ? nil : result
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without the round trip through `NSString` and UTF-16 that
    /// makes Foundation's version cost milliseconds on a long HTML body on Linux.
    static func trim(_ string: String) -> String {
        // Fast path: an ASCII non-space byte at both ends means there is nothing to trim (read in place: the view's
        // `first` and `last` cost more than the bytes themselves).
        let ends = withBytes(string) { b -> (first: UInt8, last: UInt8)? in b.isEmpty ? nil : (b[0], b[b.count - 1]) }
        guard let (firstByte, lastByte) = ends else { return string }
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
        return withBytes(string) { bytes -> Bool in
            var previousSpace = true
            for byte in bytes {
                // Most bytes are above the space: one comparison for them.
                if byte > 0x20 {
                    previousSpace = false
                    continue
                }
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

    /// Whether `string` equals the lowercase ASCII `lowercase` ignoring ASCII case (`lowercased() == lowercase`
    /// for an ASCII `lowercase`, without building the lowered copy: only ASCII letters lower to ASCII letters).
    static func isASCIICaseInsensitive(_ string: String, _ lowercase: StaticString) -> Bool {
        withBytes(string) { b in
            guard b.count == lowercase.utf8CodeUnitCount else { return false }
            let l = lowercase.utf8Start
            for k in 0..<b.count {
                let c = b[k]
                if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != l[k] { return false }
            }
            return true
        }
    }

    /// Whether `haystack` contains `needle`, comparing UTF-8 bytes (Foundation's `contains` bridges to `NSString`).
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        return withBytes(haystack) { h in
            withBytes(needle) { n in
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
        return withBytes(string) { bytes -> Int? in
            for k in 0..<bytes.count where bytes[k] == 0x3A { return k }
            return nil
        }
    }

    /// The UTF-8 offset of the first `byte` in `string`, if any.
    static func offset(of byte: UInt8, in string: String) -> Int? {
        return withBytes(string) { bytes -> Int? in
            for k in 0..<bytes.count where bytes[k] == byte { return k }
            return nil
        }
    }

    /// `string.lowercased()` for the ASCII names of elements, without allocating when there is nothing to lower.
    static func lowercasedName(_ string: String) -> String {
        // 0: nothing to lower; 1: ASCII with capitals (lowered here); 2: non-ASCII (Unicode lowercasing).
        let kind = withBytes(string) { bytes -> Int in
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
            return withBytes(string) { bytes in
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
        let out: [UInt8] = withBytes(string) { bytes in
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

    /// ``escapeAttribute(_:into:)`` on the UTF-8 bytes: `&`, `<` and `"` are escaped byte by byte when each stands
    /// between ASCII neighbours (so it is a character of its own); otherwise the value goes through the character
    /// version.
    static func appendEscapedAttribute(_ value: String, into out: inout [UInt8]) {
        let done = withBytes(value) { b -> Bool in
            for k in 0..<b.count where b[k] == 0x26 || b[k] == 0x3C || b[k] == 0x22 {
                if (k > 0 && b[k - 1] >= 0x80) || (k + 1 < b.count && b[k + 1] >= 0x80) { return false }
            }
            var copied = 0
            for k in 0..<b.count where b[k] == 0x26 || b[k] == 0x3C || b[k] == 0x22 {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<k]))
                switch b[k] {
                case 0x26: out.append(contentsOf: "&amp;".utf8)
                case 0x3C: out.append(contentsOf: "&lt;".utf8)
                default: out.append(contentsOf: "&quot;".utf8)
                }
                copied = k + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<b.count]))
            return true
        }
        guard !done else { return }
        var escaped = ""
        escapeAttribute(value, into: &escaped)
        out.append(contentsOf: escaped.utf8)
    }

    /// Serialises an element's children back to markup (XHTML elements lose their prefix).
    static func innerMarkup(of node: FeedXMLNode) -> String {
        var out: [UInt8] = []
        appendInnerMarkup(of: node, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the children of `node` as markup: the character data between child elements straight from the tree's
    /// text buffer (escaped), the child elements re-serialised.
    ///
    /// Iterative (an explicit stack of open elements, not one call per level), so no nesting depth, however large the
    /// configuration's `maxDepth`, can exhaust the thread's stack. Each top-level element of the fragment carries the
    /// namespace declarations its subtree needs from outside the fragment (``outerDeclarations(of:in:)``).
    static func appendInnerMarkup(of node: FeedXMLNode, into out: inout [UInt8]) {
        let tree = node.tree
        var ancestors: [Int] = []
        var parent = node.index
        var position = tree.elements[parent].textStart
        var child = Int(tree.elements[parent].firstChild)
        while true {
            if child >= 0 {
                let record = tree.elements[child]
                if record.textStart > position { appendEscapedText(tree, position..<record.textStart, into: &out) }
                let extra = ancestors.isEmpty ? outerDeclarations(of: child, in: tree) : []
                if appendStartTag(FeedXMLNode(tree: tree, index: child), extraDeclarations: extra, into: &out) {
                    position = record.textEnd
                    child = Int(record.nextSibling)
                } else {
                    ancestors.append(parent)
                    parent = child
                    position = record.textStart
                    child = Int(record.firstChild)
                }
            } else {
                let record = tree.elements[parent]
                if record.textEnd > position { appendEscapedText(tree, position..<record.textEnd, into: &out) }
                guard let grandparent = ancestors.popLast() else { return }
                out.append(contentsOf: "</".utf8)
                out.append(contentsOf: serializedName(FeedXMLNode(tree: tree, index: parent)).utf8)
                out.append(UInt8(ascii: ">"))
                position = record.textEnd
                child = Int(record.nextSibling)
                parent = grandparent
            }
        }
    }

    /// The name an element is written with: XHTML elements lose their prefix.
    @inline(__always)
    static func serializedName(_ node: FeedXMLNode) -> String {
        node.ns == .xhtml ? node.localName : node.qualifiedName
    }

    /// Whether a declaration made on `node` is written out: all of them on other vocabularies' elements; on XHTML
    /// elements (written without prefix) all but those of the XHTML namespace itself.
    @inline(__always)
    static func isWritten(_ declaration: (prefix: String, uri: String), on node: FeedXMLNode) -> Bool {
        node.ns != .xhtml || FeedNamespace.classify(declaration.uri) != .xhtml
    }

    /// The prefix of a qualified name (`""` without a colon).
    @inline(__always)
    static func prefix(of qualifiedName: String) -> String {
        guard let colon = colonOffset(qualifiedName) else { return "" }
        return String(Substring(qualifiedName.utf8.prefix(colon)))
    }

    /// The prefix declarations the subtree of `index` uses but does not make itself — declared on an ancestor outside
    /// the fragment (an `svg:`, `xlink:` or `m:` prefix declared on the feed's root, say) — so that the serialised
    /// fragment still parses on its own. The URI is the one the parser resolved for the name using the prefix.
    /// Unprefixed names are left alone: an outer default namespace is the feed's own (`<b>` inside an Atom 0.3
    /// title stays `<b>`), and XHTML is written unprefixed anyway.
    static func outerDeclarations(of index: Int, in tree: FeedXMLTree) -> [(prefix: String, uri: String)] {
        var needed: [(prefix: String, uri: String)] = []
        var declared: [String] = []
        var stack: [(element: Int, declared: Int)] = []
        var current = index
        func use(_ prefix: String, _ uri: String) {
            guard !prefix.isEmpty, prefix != "xml", prefix != "xmlns", !uri.isEmpty, !declared.contains(prefix),
                  !needed.contains(where: { $0.prefix == prefix }) else { return }
            needed.append((prefix, uri))
        }
        while true {
            let node = FeedXMLNode(tree: tree, index: current)
            let mark = declared.count
            for declaration in node.declarations where isWritten(declaration, on: node) { declared.append(declaration.prefix) }
            if node.ns != .xhtml { use(prefix(of: node.qualifiedName), node.namespace) }
            for attribute in node.attributes where colonOffset(attribute.qualifiedName) != nil {
                use(prefix(of: attribute.qualifiedName), attribute.namespace)
            }
            let record = tree.elements[current]
            if record.firstChild >= 0 {
                stack.append((current, mark))
                current = Int(record.firstChild)
                continue
            }
            declared.removeSubrange(mark...)
            // Climb until an element with a next sibling inside the subtree.
            var next = current
            while true {
                if next == index { return needed }
                let sibling = Int(tree.elements[next].nextSibling)
                if sibling >= 0 {
                    current = sibling
                    break
                }
                guard let (parent, parentMark) = stack.popLast() else { return needed }
                declared.removeSubrange(parentMark...)
                next = parent
            }
        }
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

    /// Writes the start tag of `node` (attributes and written declarations sorted by name, plus `extraDeclarations`);
    /// returns `true` when the element was written complete as an empty void element (`<br />`).
    static func appendStartTag(_ node: FeedXMLNode, extraDeclarations: [(prefix: String, uri: String)],
                               into out: inout [UInt8]) -> Bool {
        let name = serializedName(node)
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: name.utf8)
        var pairs = node.attributes.map { ($0.qualifiedName, $0.value) }
        for declaration in node.declarations where isWritten(declaration, on: node) {
            pairs.append((declaration.prefix.isEmpty ? "xmlns" : "xmlns:" + declaration.prefix, declaration.uri))
        }
        for (prefix, uri) in extraDeclarations {
            pairs.append((prefix.isEmpty ? "xmlns" : "xmlns:" + prefix, uri))
        }
        pairs.sort { $0.0 < $1.0 }
        for (key, value) in pairs {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: key.utf8)
            out.append(contentsOf: "=\"".utf8)
            var value = value
            if node.base != nil, FeedHTMLURLRewriter.urlAttributes.contains(lowercasedName(key)), let base = node.base,
               let resolved = FeedHTMLURLRewriter.absolute(value, base, emptyIsBase: lowercasedName(key) == "href") {
                value = resolved.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            }
            appendEscapedAttribute(value, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        if node.isEmpty, voidElements.contains(lowercasedName(name)) {
            out.append(contentsOf: " />".utf8)
            return true
        }
        out.append(UInt8(ascii: ">"))
        if node.isEmpty {
            out.append(contentsOf: "</".utf8)
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: ">"))
            return true
        }
        return false
    }

    /// Character data when the element holds only text, re-serialised markup when it holds elements.
    /// Relative URLs inside the HTML are resolved against the element's base.
    static func content(of node: FeedXMLNode) -> String {
        node.hasElementChildren ? innerMarkup(of: node) : html(node.text, node)
    }

    /// An HTML string from `node`, with relative URLs resolved against the node's base and C1 character references
    /// read as windows-1252 (``mappingC1References(_:)``).
    static func html(_ string: String, _ node: FeedXMLNode) -> String {
        FeedHTMLURLRewriter.resolve(mappingC1References(string), against: node.base)
    }

    /// Whether UTF-8 `bytes` hold a C1 control character (`C2 80`–`C2 9F`). `C2` also leads U+00A0–U+00BF (a
    /// no-break space, `©`…), common in HTML, so each `C2` found is checked.
    @inline(__always)
    static func containsC1(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var k = 0
        while k < bytes.count, let hit = memchr(base + k, 0xC2, bytes.count - k) {
            k = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
            if k < bytes.count, bytes[k] <= 0x9F, bytes[k] >= 0x80 { return true }
        }
        return false
    }

    /// `bytes` (UTF-8) with every C1 control character (`C2 80`–`C2 9F`) replaced by the windows-1252 character of
    /// the same code (U+0092 → U+2019 ’); the five codes windows-1252 leaves undefined are kept.
    static func mappingC1Characters(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var copied = 0
        var k = 0
        while k + 1 < bytes.count {
            guard bytes[k] == 0xC2, bytes[k + 1] >= 0x80, bytes[k + 1] <= 0x9F else {
                k += 1
                continue
            }
            let scalar = FeedHTMLEntities.windows1252C1[Int(bytes[k + 1] - 0x80)]
            if scalar != 0xFFFD, let mapped = Unicode.Scalar(scalar) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<k]))
                out.append(contentsOf: String(Character(mapped)).utf8)
                copied = k + 2
            }
            k += 2
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        return out
    }

    /// `html` with its C1 numeric character references (`&#128;`–`&#159;`, `&#x80;`–`&#x9F;`) replaced by the
    /// windows-1252 characters browsers show for them (`&#146;` → ’); the undefined codes are kept as written.
    /// The string is rebuilt only when it holds one.
    static func mappingC1References(_ html: String) -> String {
        let edits: [(range: Range<Int>, scalar: UInt32)] = withBytes(html) { b in
            guard let base = b.baseAddress else { return [] }
            var edits: [(range: Range<Int>, scalar: UInt32)] = []
            var i = 0
            // Looks for the `#` (rarer in HTML than `&`, which every entity and query string has) and checks the `&`
            // before it.
            while i + 4 < b.count, let found = memchr(base + i, 0x23, b.count - i) {
                let hash = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                i = hash + 1
                guard hash > 0, b[hash - 1] == UInt8(ascii: "&") else { continue }
                let start = hash - 1
                var k = hash + 1
                var value: UInt32 = 0
                var digits = 0
                let hex = k < b.count && (b[k] | 0x20) == UInt8(ascii: "x")
                if hex { k += 1 }
                while k < b.count, digits < 8 {
                    let c = b[k]
                    if c >= 0x30 && c <= 0x39 { value = value * (hex ? 16 : 10) + UInt32(c - 0x30) }
                    else if hex, (c | 0x20) >= 0x61, (c | 0x20) <= 0x66 { value = value * 16 + UInt32((c | 0x20) - 0x61 + 10) }
                    else { break }
                    digits += 1
                    k += 1
                }
                guard digits > 0, k < b.count, b[k] == UInt8(ascii: ";"), value >= 0x80, value <= 0x9F else { continue }
                let scalar = FeedHTMLEntities.windows1252C1[Int(value - 0x80)]
                if scalar != 0xFFFD { edits.append((start..<(k + 1), scalar)) }
                i = k + 1
            }
            return edits
        }
        guard !edits.isEmpty else { return html }
        return withBytes(html) { b in
            var out: [UInt8] = []
            out.reserveCapacity(b.count)
            var copied = 0
            for edit in edits {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<edit.range.lowerBound]))
                if let scalar = Unicode.Scalar(edit.scalar) { out.append(contentsOf: String(Character(scalar)).utf8) }
                copied = edit.range.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<b.count]))
            return String(decoding: out, as: UTF8.self)
        }
    }
}
