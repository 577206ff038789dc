import Foundation

/// Makes relative URLs inside HTML fragments absolute (`href`, `src` and similar attributes), so that content
/// shown outside the feed's context still links and loads correctly. Everything else is copied byte for byte.
enum FeedHTMLURLRewriter {
    static let urlAttributes: Set<String> = ["href", "src", "poster", "cite", "action", "background", "longdesc",
                                             "usemap", "codebase", "data", "lowsrc", "dynsrc", "profile"]

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }

    /// The URL attribute names as bytes, for matching ASCII attribute names without building strings.
    static let urlAttributeBytes: [[UInt8]] = urlAttributes.map { Array($0.utf8) }

    /// Whether the attribute name `b[range]`, lowercased, is one of ``urlAttributes``.
    static func isURLAttribute(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard range.count >= 3, range.count <= 10 else {
            // Longer or shorter names can match only through Unicode lowercasing of non-ASCII letters.
            return range.contains { b[$0] >= 0x80 } && urlAttributes.contains(String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self).lowercased())
        }
        if range.contains(where: { b[$0] >= 0x80 }) {
            return urlAttributes.contains(String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self).lowercased())
        }
        candidates: for name in urlAttributeBytes where name.count == range.count {
            for k in 0..<name.count {
                let c = b[range.lowerBound + k]
                if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != name[k] { continue candidates }
            }
            return true
        }
        return false
    }

    /// Returns `html` with relative URL attribute values resolved against `base`.
    ///
    /// Scans the UTF-8 bytes in place and records the replacements; the result is built only when something changed.
    static func resolve(_ html: String, against base: URL?) -> String {
        guard let base else { return html }
        let edits: [(range: Range<Int>, replacement: String)] = FeedText.withBytes(html) { b in
            guard let start = b.baseAddress, memchr(start, Int32(UInt8(ascii: "=")), b.count) != nil else { return [] }
            var edits: [(range: Range<Int>, replacement: String)] = []
            var i = 0
            let n = b.count
            while i < n {
                guard b[i] == UInt8(ascii: "<"), i + 1 < n, (b[i + 1] | 0x20) >= 0x61, (b[i + 1] | 0x20) <= 0x7A else {
                    i += 1
                    continue
                }
                // Tag name.
                while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { i += 1 }
                // Attributes until '>'.
                while i < n, b[i] != UInt8(ascii: ">") {
                    if isSpace(b[i]) || b[i] == UInt8(ascii: "/") { i += 1; continue }
                    let keyStart = i
                    while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">") { i += 1 }
                    let keyRange = keyStart..<i
                    while i < n, isSpace(b[i]) { i += 1 }
                    guard i < n, b[i] == UInt8(ascii: "=") else { continue }
                    i += 1
                    while i < n, isSpace(b[i]) { i += 1 }
                    var quote: UInt8 = 0
                    if i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                        quote = b[i]
                        i += 1
                    }
                    let valueStart = i
                    if quote != 0 {
                        while i < n, b[i] != quote { i += 1 }
                    } else {
                        while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { i += 1 }
                    }
                    if isURLAttribute(b, keyRange),
                       let resolved = absolute(String(decoding: UnsafeBufferPointer(rebasing: b[valueStart..<i]), as: UTF8.self), base,
                                               emptyIsBase: quote != 0 && isHref(b, keyRange)) {
                        edits.append((valueStart..<i, resolved))
                    }
                    if quote != 0, i < n { i += 1 }
                }
                if i < n { i += 1 }
            }
            return edits
        }
        guard !edits.isEmpty else { return html }
        return FeedText.withBytes(html) { b in
            var out: [UInt8] = []
            out.reserveCapacity(b.count + 64 * edits.count)
            var copied = 0
            for edit in edits {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<edit.range.lowerBound]))
                out.append(contentsOf: edit.replacement.utf8)
                copied = edit.range.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<b.count]))
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The absolute form of a relative reference, or `nil` when it is already absolute or unusable.
    /// - Parameter emptyIsBase: Whether an empty value is the empty relative reference, which RFC 3986 resolves to the
    ///   base (for `href`; an empty `src` is no reference in HTML and stays empty).
    static func absolute(_ value: String, _ base: URL, emptyIsBase: Bool = false) -> String? {
        let trimmed = FeedText.trim(value)
        if trimmed.isEmpty, emptyIsBase { return escaped(base.absoluteString) }
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        if hasScheme(trimmed) { return nil }
        // Foundation's replacingOccurrences bridges through NSString on Linux: call it only when there is an `&` or `"`.
        let unescaped = FeedText.offset(of: UInt8(ascii: "&"), in: trimmed) == nil ? trimmed : trimmed.replacingOccurrences(of: "&amp;", with: "&")
        guard let url = URL(string: unescaped, relativeTo: base) else { return nil }
        return escaped(url.absoluteString)
    }

    /// `&` and `"` escaped for an attribute value.
    static func escaped(_ absolute: String) -> String {
        if FeedText.offset(of: UInt8(ascii: "&"), in: absolute) == nil, FeedText.offset(of: UInt8(ascii: "\""), in: absolute) == nil {
            return absolute
        }
        return absolute.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Whether the attribute name `b[range]` is `href` in any case.
    static func isHref(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard range.count == 4 else { return false }
        let name: StaticString = "href"
        for k in 0..<4 where (b[range.lowerBound + k] | 0x20) != name.utf8Start[k] { return false }
        return true
    }

    /// Whether the text before the first `:` consists of letters, digits, `+`, `-` and `.` (Unicode letters and digits
    /// count, as `Character.isLetter`/`isNumber` say); bytes for ASCII text, characters otherwise.
    static func hasScheme(_ string: String) -> Bool {
        let ascii: Bool? = FeedText.withBytes(string) { b in
            var k = 0
            while k < b.count, b[k] != UInt8(ascii: ":") {
                if b[k] >= 0x80 { return nil }
                k += 1
            }
            guard k < b.count else { return false }
            if k + 1 < b.count, b[k + 1] >= 0x80 { return nil } // a combining mark could make ":" part of another character
            for j in 0..<k {
                let c = b[j]
                let isLetter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A
                let isDigit = c >= 0x30 && c <= 0x39
                if !(isLetter || isDigit || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")) { return false }
            }
            return true
        }
        if let ascii { return ascii }
        guard let colon = string.firstIndex(of: ":") else { return false }
        return string[..<colon].allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
    }
}
