/// How many columns a terminal gives a string, per grapheme cluster, as `wcwidth`-style terminals do:
/// - 2 for East Asian Wide and Fullwidth characters (UAX #11: Hangul, kana, CJK ideographs, fullwidth forms) and for
///   emoji shown as emoji (Emoji_Presentation, a text-style emoji followed by U+FE0F, a flag's two regional indicators);
/// - 0 for a cluster of only combining marks, format or control characters (U+200D, U+FE0F alone, U+0301 alone);
/// - 1 otherwise, including East Asian Ambiguous characters such as ★, ● and ♥ (one column outside CJK locales).
///
/// Marks that join a base character (a combining accent, Hangul medial vowels and final consonants, variation
/// selectors, zero-width joiners inside an emoji sequence) add nothing to its cluster's width.
enum TerminalWidth {
    static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + columns($1) }
    }

    static func columns(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let base = scalars.first(where: { !isZeroWidth($0) }) else { return 0 }
        let properties = base.properties
        if properties.isEmojiPresentation { return 2 }
        if properties.isEmoji, scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if (0x1F1E6...0x1F1FF).contains(base.value) { return 2 }
        return isWide(base.value) ? 2 : 1
    }

    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return true
        default: return (0x1160...0x11FF).contains(scalar.value) || (0xD7B0...0xD7FF).contains(scalar.value)
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks of UAX #11 (EastAsianWidth.txt) that are not emoji; emoji are
    /// decided by their Emoji_Presentation property above.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF,
        0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251, 0x20000...0x2FFFD,
        0x30000...0x3FFFD,
    ]

    static func isWide(_ value: UInt32) -> Bool {
        wideRanges.contains { $0.contains(value) }
    }
}
