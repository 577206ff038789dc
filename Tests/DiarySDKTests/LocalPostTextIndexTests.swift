@_spi(Storage) @testable import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

/// The text index splits ASCII text byte by byte: the tokens must be the ones the character-by-character split gives.
@Suite("Local post text index")
struct LocalPostTextIndexTests {
    @Test func asciiTextSplitsIntoTheSameTokensAsItsCharacters() {
        var random = SeededRandomGenerator(seed: 11)
        let alphabet = (UInt8(0)..<0x80).map { Character(Unicode.Scalar($0)) } + ["\r\n", "a", "b", "c"]
        for _ in 0..<500 {
            let text = String((0..<Int(random.next() % 40)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            #expect(
                LocalPostTextIndex.tokens(in: text)
                    == Set(text.split(whereSeparator: LocalPostTextIndex.isSeparator).map(String.init)), "\(Array(text.utf8))")
        }
    }

    @Test func nonASCIITextSplitsOnSeparatorCharacters() {
        #expect(LocalPostTextIndex.tokens(in: "café, naïve—日本語\u{3000}x") == ["café", "naïve", "日本語", "x"])
    }
}
