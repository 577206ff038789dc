import Foundation

/// What search compares: the text a reader sees, folded so that what a phone keyboard types finds what was written.
///
/// One folding function serves both sides, the indexed text and the query, so a variant folded on one side is
/// always folded the same way on the other.
package enum SearchText {
    /// The text a post is found by: its title, its readable body and its tags, folded.
    ///
    /// Imported blog posts keep the HTML their feed gave; their body is searched as a reader sees it (markup
    /// removed, entities decoded). Posts written in the app are plain text, so a `<` in them is just a character.
    package static func searchable(_ post: PostRecord) -> String {
        let body: String
        if case .blog = post.source { body = readable(html: post.body) } else { body = post.body }
        return fold(post.title + "\n" + body + "\n" + post.tags.joined(separator: " "))
    }

    /// The words of a query, folded.
    package static func words(of query: String) -> [String] {
        fold(query).split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// Lowercased, without diacritics, with the typographic variants of ASCII punctuation a keyboard may produce
    /// (curly apostrophes and quotes, dashes, the ellipsis, non-breaking and ideographic spaces, full-width forms)
    /// turned into the plain characters, and invisible formatting characters removed.
    /// - Complexity: O(n) in the length of `text`.
    package static func fold(_ text: String) -> String {
        if let ascii = foldedASCII(text) { return ascii }
        var plain = String.UnicodeScalarView()
        plain.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x2018, 0x2019, 0x201A, 0x201B, 0x2032, 0x2035, 0x02BC, 0x02B9, 0x00B4, 0x0060:
                plain.append("'")
            case 0x201C, 0x201D, 0x201E, 0x201F, 0x2033, 0x2036:
                plain.append("\"")
            case 0x2010...0x2015, 0x2212, 0xFE58, 0xFE63:
                plain.append("-")
            case 0x2026:
                plain.append(contentsOf: "...".unicodeScalars)
            case 0x00A0, 0x2000...0x200A, 0x202F, 0x205F, 0x3000:
                plain.append(" ")
            case 0x00AD, 0x200B, 0x2060, 0xFEFF:
                continue
            case 0xFF01...0xFF5E:
                // Full-width ASCII: the same character 0xFEE0 lower.
                plain.append(Unicode.Scalar(scalar.value - 0xFEE0)!)
            default:
                plain.append(scalar)
            }
        }
        return String(plain).folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// What ``fold(_:)`` makes of text that is all ASCII, without Foundation's folding: the grave accent becomes an
    /// apostrophe and `A`–`Z` lowercase, as the general path does (SearchTextTests checks every ASCII character
    /// against it). `nil` when the text is not all ASCII.
    private static func foldedASCII(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 0x80...: return nil
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte + 0x20)
            case UInt8(ascii: "`"): bytes.append(UInt8(ascii: "'"))
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text of an HTML fragment as a reader sees it: tags removed (with the contents of `script` and `style`),
    /// comments removed, character references decoded, and a space where a block-level tag separated words.
    /// A `<` that does not start a tag stays a character.
    /// - Complexity: O(n) in the length of `html`: every scan moves forward and no scalar is scanned more than a
    ///   bounded number of times, whatever the markup (see ``readableCountingSteps(html:)``).
    package static func readable(html: String) -> String {
        readableCountingSteps(html: html).text
    }

    /// ``readable(html:)`` with the number of scalar inspections it made, so that tests can check the work stays
    /// linear in the length of the input without timing anything.
    package static func readableCountingSteps(html: String) -> (text: String, steps: Int) {
        var reader = Reader(scalars: Array(html.unicodeScalars))
        let text = reader.read()
        return (text, reader.steps)
    }

    // MARK: - Helpers

    /// Elements that sit inside a word's run of text; any other tag separates words.
    private static let inlineElements: Set<String> = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "mark",
        "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var",
    ]

    /// Whether a scalar can continue an element name.
    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-")
    }

    /// A tag, comment or declaration starting at a `<`.
    private struct Tag {
        /// The lowercased element name (empty for comments and declarations).
        var name: String
        var isClosing: Bool
        /// Just past the closing `>`.
        var end: Int
    }

    /// One pass over an HTML fragment; `steps` counts every scalar it inspects.
    private struct Reader {
        let scalars: [Unicode.Scalar]
        var steps = 0

        mutating func read() -> String {
            var out = String.UnicodeScalarView()
            out.reserveCapacity(scalars.count)
            var index = 0
            while index < scalars.count {
                steps += 1
                let scalar = scalars[index]
                if scalar == "<", let tag = tag(at: index) {
                    if !inlineElements.contains(tag.name) { out.append(" ") }
                    index = tag.end
                    if !tag.isClosing, tag.name == "script" || tag.name == "style" {
                        index = endOfRawText(tag.name, from: index)
                    }
                } else if scalar == "&", let (decoded, end) = reference(at: index) {
                    out.append(decoded)
                    index = end
                } else {
                    out.append(scalar)
                    index += 1
                }
            }
            return String(out)
        }

        /// The tag at `start` (a `<`), or nil when the `<` starts no tag. A tag with no `>` runs to the end.
        mutating func tag(at start: Int) -> Tag? {
            var index = start + 1
            guard index < scalars.count else { return nil }
            steps += 1
            if scalars[index] == "!" || scalars[index] == "?" {
                let isComment = index + 2 < scalars.count && scalars[index + 1] == "-" && scalars[index + 2] == "-"
                if isComment {
                    index += 3
                    while index + 2 < scalars.count
                        && !(scalars[index] == "-" && scalars[index + 1] == "-" && scalars[index + 2] == ">")
                    {
                        steps += 1
                        index += 1
                    }
                    return Tag(name: "", isClosing: false, end: min(scalars.count, index + 3))
                }
                while index < scalars.count && scalars[index] != ">" {
                    steps += 1
                    index += 1
                }
                return Tag(name: "", isClosing: false, end: min(scalars.count, index + 1))
            }
            let isClosing = scalars[index] == "/"
            if isClosing { index += 1 }
            guard index < scalars.count, scalars[index].properties.isAlphabetic, scalars[index].isASCII else { return nil }
            var name = String.UnicodeScalarView()
            while index < scalars.count, isNameScalar(scalars[index]) {
                steps += 1
                name.append(scalars[index])
                index += 1
            }
            return Tag(name: String(name).lowercased(), isClosing: isClosing, end: endOfAttributes(from: index))
        }

        /// Just past the `>` that ends a tag's attributes (a `>` inside a quoted value does not count), or the end.
        mutating func endOfAttributes(from start: Int) -> Int {
            var index = start
            var quote: Unicode.Scalar?
            while index < scalars.count {
                steps += 1
                let scalar = scalars[index]
                if let open = quote {
                    if scalar == open { quote = nil }
                } else if scalar == "\"" || scalar == "'" {
                    quote = scalar
                } else if scalar == ">" {
                    break
                }
                index += 1
            }
            return min(scalars.count, index + 1)
        }

        /// Just past the `</name ...>` that ends a raw-text element, or the end of the text.
        ///
        /// A linear search for the literal `</name` (ASCII case-insensitive) not followed by another name
        /// character; only that one end tag's attributes are then skipped. Nothing else inside is parsed.
        mutating func endOfRawText(_ name: String, from start: Int) -> Int {
            let needle = Array(name.unicodeScalars)
            var index = start
            while index + 1 + needle.count < scalars.count {
                steps += 1
                if scalars[index] == "<", scalars[index + 1] == "/", matches(needle, at: index + 2) {
                    let after = index + 2 + needle.count
                    if after >= scalars.count || !isNameScalar(scalars[after]) {
                        return endOfAttributes(from: after)
                    }
                }
                index += 1
            }
            return scalars.count
        }

        /// Whether the lowercase ASCII `needle` is at `start`, ignoring ASCII case.
        mutating func matches(_ needle: [Unicode.Scalar], at start: Int) -> Bool {
            for (offset, expected) in needle.enumerated() {
                steps += 1
                let scalar = scalars[start + offset]
                guard scalar.isASCII else { return false }
                let lowered = ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
                if lowered != expected { return false }
            }
            return true
        }

        /// A character reference at `start`; see ``SearchText/reference(in:at:steps:)``.
        mutating func reference(at start: Int) -> (Unicode.Scalar, Int)? {
            SearchText.reference(in: scalars, at: start, steps: &steps)
        }
    }

    /// A character reference (`&amp;`, `&#8217;`, `&#x2019;`) at `start`: the character and the index past the `;`.
    /// At most 33 scalars are inspected.
    private static func reference(
        in scalars: [Unicode.Scalar], at start: Int, steps: inout Int
    ) -> (Unicode.Scalar, Int)? {
        var index = start + 1
        var body = String.UnicodeScalarView()
        while index < scalars.count, index - start <= 32, scalars[index] != ";" {
            steps += 1
            guard scalars[index].isASCII, scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
                || scalars[index] == "#"
            else { return nil }
            body.append(scalars[index])
            index += 1
        }
        guard index < scalars.count, scalars[index] == ";", !body.isEmpty else { return nil }
        let text = String(body)
        var value: UInt32?
        if text.hasPrefix("#x") || text.hasPrefix("#X") {
            value = UInt32(text.dropFirst(2), radix: 16)
        } else if text.hasPrefix("#") {
            value = UInt32(text.dropFirst())
        } else {
            value = FeedHTMLEntities.table[text]
        }
        guard var code = value else { return nil }
        if (0x80...0x9F).contains(code) { code = FeedHTMLEntities.windows1252C1[Int(code - 0x80)] }
        guard let decoded = Unicode.Scalar(code), code != 0 else { return nil }
        return (decoded, index + 1)
    }
}
