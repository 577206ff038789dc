import Foundation

extension StringProtocol {
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` without the trip through `NSString` that makes it slow on
    /// Linux: the same scalars go, those with Unicode's `White_Space` property and U+200B ZERO WIDTH SPACE, which
    /// CoreFoundation's table still counts (a test holds the two sets equal), from both ends, scalar by scalar as
    /// Foundation trims them.
    package func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars { $0.properties.isWhitespace || $0 == "\u{200B}" }
    }

    /// `trimmingCharacters(in: .whitespaces)` likewise: the same but for line and paragraph breaks.
    package func trimmingWhitespace() -> String {
        trimmingScalars { ($0.properties.isWhitespace || $0 == "\u{200B}") && !Self.isLineBreak($0) }
    }

    /// Whether a `White_Space` scalar is one of `CharacterSet.newlines`.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    private func trimmingScalars(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let text = Substring(self)
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, isTrimmed(scalars[start]) { start = scalars.index(after: start) }
        while start < end {
            let last = scalars.index(before: end)
            guard isTrimmed(scalars[last]) else { break }
            end = last
        }
        return String(scalars[start..<end])
    }
}
