@testable import DiarySDK
import Foundation
import Testing

/// The SDK trims text with its own scalar loop instead of `trimmingCharacters(in:)` (slow on Linux): it must trim
/// exactly what Foundation trims.
@Suite("Whitespace trimming")
struct WhitespaceTrimmingTests {
    @Test func theTrimmedScalarsAreFoundationsSetsExactly() {
        var checked = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "\(Character(scalar))x\(Character(scalar))"
            let both = CharacterSet.whitespacesAndNewlines.contains(scalar)
            let blanks = CharacterSet.whitespaces.contains(scalar)
            #expect((text.trimmingWhitespaceAndNewlines() == "x") == both, "U+\(String(value, radix: 16))")
            #expect((text.trimmingWhitespace() == "x") == blanks, "U+\(String(value, radix: 16))")
            checked += 1
        }
        #expect(checked > 1_000_000)
    }

    @Test func textIsTrimmedAsFoundationTrimsIt() {
        let samples = [
            "", " ", "\n\t ", "plain", "  both ends \n", "\u{3000}wide\u{3000}", " \u{301}combining after a blank",
            "inner  spaces stay", "\u{85}next line\u{2028}", "emoji 👩‍👩‍👧 ", "\r\n", "\u{A0}no-break\u{A0}", "tab\t",
        ]
        for sample in samples {
            #expect(sample.trimmingWhitespaceAndNewlines() == sample.trimmingCharacters(in: .whitespacesAndNewlines), "\(sample.debugDescription)")
            #expect(sample.trimmingWhitespace() == sample.trimmingCharacters(in: .whitespaces), "\(sample.debugDescription)")
            let sub = sample.dropFirst(0)
            #expect(sub.trimmingWhitespaceAndNewlines() == sample.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
