@testable import DiarySDK
import Foundation
import Testing

/// `SearchText.fold` folds ASCII text without Foundation: it must give exactly what the general path gives.
@Suite("SearchText folding")
struct SearchTextFoldTests {
    private static func foundationFold(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "'")
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    @Test func everyASCIICharacterFoldsAsFoundationFoldsIt() {
        for value in UInt8(0)..<0x80 {
            let text = "a\(Character(Unicode.Scalar(value)))Z"
            #expect(SearchText.fold(text) == Self.foundationFold(text), "\(value)")
        }
    }

    @Test func textWithAnyOtherCharacterTakesTheGeneralPath() {
        #expect(SearchText.fold("Ｃafé `Don’t`") == "cafe 'don't'")
        #expect(SearchText.fold("CAFE\u{301}") == "cafe")
    }
}
