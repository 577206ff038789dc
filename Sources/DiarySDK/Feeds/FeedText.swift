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
        let string = raw.trimmingCharacters(in: .whitespacesAndNewlines)
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
        let result = string.trimmingCharacters(in: .whitespacesAndNewlines)
        return result.isEmpty ? nil : result
    }

    /// Trims and collapses every internal whitespace run to one space (for titles and names).
    static func collapsed(_ string: String?) -> String? {
        guard let string else { return nil }
        var out = ""
        out.reserveCapacity(string.utf8.count)
        var pendingSpace = false
        for scalar in string.unicodeScalars {
            if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.unicodeScalars.append(scalar)
            }
        }
        return out.isEmpty ? nil : out
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
        var out = ""
        for child in node.children {
            switch child {
            case .text(let string): escapeText(string, into: &out)
            case .element(let element): serialize(element, into: &out)
            }
        }
        return out
    }

    static func serialize(_ node: FeedXMLNode, into out: inout String) {
        let name = node.ns == .xhtml ? node.localName : node.qualifiedName
        out += "<" + name
        var pairs = node.attributes.map { ($0.qualifiedName, $0.value) }
        for (prefix, uri) in node.declarations where node.ns != .xhtml {
            pairs.append((prefix.isEmpty ? "xmlns" : "xmlns:" + prefix, uri))
        }
        pairs.sort { $0.0 < $1.0 }
        for (key, value) in pairs {
            out += " " + key + "=\""
            var value = value
            if FeedHTMLURLRewriter.urlAttributes.contains(key.lowercased()), let base = node.base,
               let resolved = FeedHTMLURLRewriter.absolute(value, base) {
                value = resolved.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            }
            escapeAttribute(value, into: &out)
            out += "\""
        }
        if node.children.isEmpty, voidElements.contains(name.lowercased()) {
            out += " />"
            return
        }
        out += ">"
        out += innerMarkup(of: node)
        out += "</" + name + ">"
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
