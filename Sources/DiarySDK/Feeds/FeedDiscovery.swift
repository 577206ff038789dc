import Foundation

/// Finds the feeds an HTML page advertises with `<link rel="alternate" type="…" href="…">`.
public enum FeedDiscovery: Sendable {
    /// The media types recognised as feeds.
    static let feedTypes: Set<String> = ["application/rss+xml", "application/atom+xml", "application/feed+json",
                                         "application/json", "application/rdf+xml", "text/xml", "application/xml"]

    /// Scans HTML for feed `link` elements.
    ///
    /// Attribute order, quoting style (double, single, none) and letter case do not matter; `rel` may hold
    /// several tokens; relative `href`s are resolved against `baseURL` (or the page's `<base href>`).
    /// `application/json`, `text/xml` and `application/xml` count only together with `rel="alternate"`
    /// and a feed-like `href` or `title`, to avoid picking up unrelated data files.
    /// - Parameters:
    ///   - html: The page source.
    ///   - baseURL: The page URL.
    /// - Returns: The feed URLs in document order, without duplicates.
    public static func feedLinks(inHTML html: String, baseURL: URL) -> [URL] {
        var results: [URL] = []
        var base = baseURL
        for tag in FeedHTMLTagScanner.tags(in: html, named: ["link", "base"]) {
            if tag.name == "base" {
                if let href = tag.attributes["href"], let url = FeedURLResolver.resolve(href, against: baseURL) { base = url }
                continue
            }
            let rels = (tag.attributes["rel"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard rels.contains("alternate") || rels.contains("feed") else { continue }
            let type = (tag.attributes["type"] ?? "").lowercased().split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces)
            } ?? ""
            guard feedTypes.contains(type) else { continue }
            if ["application/json", "text/xml", "application/xml"].contains(type) {
                let hint = ((tag.attributes["href"] ?? "") + " " + (tag.attributes["title"] ?? "")).lowercased()
                guard hint.contains("feed") || hint.contains("rss") || hint.contains("atom") else { continue }
            }
            guard let href = tag.attributes["href"], let url = FeedURLResolver.resolve(href, against: base) else { continue }
            if !results.contains(url) { results.append(url) }
        }
        return results
    }
}

/// A minimal HTML tag scanner: yields start tags with lower-cased names and attributes, skipping comments,
/// `<script>` and `<style>` contents.
enum FeedHTMLTagScanner {
    struct Tag {
        var name: String
        var attributes: [String: String]
    }

    static func tags(in html: String, named names: Set<String>) -> [Tag] {
        let b = Array(html.utf8)
        var tags: [Tag] = []
        var i = 0
        let n = b.count
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        func skipPast(_ literal: [UInt8]) {
            while i < n {
                if b[i] == literal[0], i + literal.count <= n, zip(b[i..<(i + literal.count)], literal).allSatisfy({ lower($0) == $1 }) {
                    i += literal.count
                    return
                }
                i += 1
            }
        }
        while i < n {
            guard b[i] == UInt8(ascii: "<") else { i += 1; continue }
            i += 1
            if i + 2 < n, b[i] == UInt8(ascii: "!"), b[i + 1] == UInt8(ascii: "-"), b[i + 2] == UInt8(ascii: "-") {
                skipPast(Array("-->".utf8))
                continue
            }
            let nameStart = i
            while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">"), b[i] != UInt8(ascii: "/") { i += 1 }
            let name = String(decoding: b[nameStart..<i].map(lower), as: UTF8.self)
            var attributes: [String: String] = [:]
            // Attributes.
            while i < n, b[i] != UInt8(ascii: ">") {
                if isSpace(b[i]) || b[i] == UInt8(ascii: "/") { i += 1; continue }
                let keyStart = i
                while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">") { i += 1 }
                let key = String(decoding: b[keyStart..<i].map(lower), as: UTF8.self)
                while i < n, isSpace(b[i]) { i += 1 }
                var value = ""
                if i < n, b[i] == UInt8(ascii: "=") {
                    i += 1
                    while i < n, isSpace(b[i]) { i += 1 }
                    if i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
                        let quote = b[i]
                        i += 1
                        let valueStart = i
                        while i < n, b[i] != quote { i += 1 }
                        value = String(decoding: b[valueStart..<i], as: UTF8.self)
                        if i < n { i += 1 }
                    } else {
                        let valueStart = i
                        while i < n, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { i += 1 }
                        value = String(decoding: b[valueStart..<i], as: UTF8.self)
                    }
                }
                if !key.isEmpty, attributes[key] == nil { attributes[key] = decodeEntities(value) }
            }
            if i < n { i += 1 }
            if names.contains(name) { tags.append(Tag(name: name, attributes: attributes)) }
            if name == "script" || name == "style" { skipPast(Array("</\(name)".utf8)) }
        }
        return tags
    }

    /// Decodes the few entities common in attribute values.
    static func decodeEntities(_ value: String) -> String {
        guard value.contains("&") else { return value }
        return value.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
    }
}
