import Foundation

/// Makes relative URLs inside HTML fragments absolute (`href`, `src` and similar attributes), so that content
/// shown outside the feed's context still links and loads correctly. Everything else is copied byte for byte.
enum FeedHTMLURLRewriter {
    static let urlAttributes: Set<String> = ["href", "src", "poster", "cite", "action", "background", "longdesc",
                                             "usemap", "codebase", "data", "lowsrc", "dynsrc", "profile"]

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }

    /// Returns `html` with relative URL attribute values resolved against `base`.
    static func resolve(_ html: String, against base: URL?) -> String {
        guard let base, html.utf8.contains(UInt8(ascii: "=")) else { return html }
        let b = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 64)
        var i = 0
        let n = b.count
        var changed = false
        while i < n {
            guard b[i] == UInt8(ascii: "<"), i + 1 < n, (b[i + 1] | 0x20) >= 0x61, (b[i + 1] | 0x20) <= 0x7A else {
                out.append(b[i])
                i += 1
                continue
            }
            // Tag name.
            while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { out.append(b[i]); i += 1 }
            // Attributes until '>'.
            while i < n, b[i] != UInt8(ascii: ">") {
                if isSpace(b[i]) || b[i] == UInt8(ascii: "/") { out.append(b[i]); i += 1; continue }
                let keyStart = i
                while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">") { i += 1 }
                let key = String(decoding: b[keyStart..<i], as: UTF8.self).lowercased()
                out.append(contentsOf: b[keyStart..<i])
                while i < n, isSpace(b[i]) { out.append(b[i]); i += 1 }
                guard i < n, b[i] == UInt8(ascii: "=") else { continue }
                out.append(b[i])
                i += 1
                while i < n, isSpace(b[i]) { out.append(b[i]); i += 1 }
                var quote: UInt8 = 0
                if i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                    quote = b[i]
                    out.append(quote)
                    i += 1
                }
                let valueStart = i
                if quote != 0 {
                    while i < n, b[i] != quote { i += 1 }
                } else {
                    while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { i += 1 }
                }
                let value = String(decoding: b[valueStart..<i], as: UTF8.self)
                if urlAttributes.contains(key), let resolved = absolute(value, base) {
                    out.append(contentsOf: Array(resolved.utf8))
                    changed = true
                } else {
                    out.append(contentsOf: b[valueStart..<i])
                }
                if quote != 0, i < n { out.append(quote); i += 1 }
            }
            if i < n { out.append(b[i]); i += 1 }
        }
        return changed ? String(decoding: out, as: UTF8.self) : html
    }

    /// The absolute form of a relative reference, or `nil` when it is already absolute or unusable.
    static func absolute(_ value: String, _ base: URL) -> String? {
        let trimmed = FeedText.trim(value)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        if let colon = trimmed.firstIndex(of: ":"),
           trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
            return nil // has a scheme
        }
        guard let url = URL(string: trimmed.replacingOccurrences(of: "&amp;", with: "&"), relativeTo: base) else { return nil }
        let absolute = url.absoluteString
        return absolute.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
