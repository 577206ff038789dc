import DiarySDK
import Foundation
import Testing

@Suite("Random ids")
struct RandomIDGeneratorTests {
    /// Every id is a version-4 UUID of the RFC 9562 variant, and 10,000 of them are all different.
    @Test func idsAreDistinctVersionFourUUIDs() {
        let generator = RandomIDGenerator()
        var seen: Set<UUID> = []
        for _ in 0..<10_000 {
            let id = generator.next()
            let text = id.uuidString
            let characters = Array(text)
            #expect(characters[14] == "4", "the version of \(text)")
            #expect("89AB".contains(characters[19]), "the variant of \(text)")
            #expect(UUID(uuidString: text) == id)
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }

    /// The 122 random bits are all used: across 1,000 ids, each of them is set in some id and clear in another.
    @Test func everyRandomBitVaries() {
        let generator = RandomIDGenerator()
        var everSet = [Bool](repeating: false, count: 128)
        var everClear = [Bool](repeating: false, count: 128)
        for _ in 0..<1_000 {
            var uuid = generator.next().uuid
            withUnsafeBytes(of: &uuid) { bytes in
                for bit in 0..<128 {
                    if bytes[bit / 8] & (0x80 >> UInt8(bit % 8)) != 0 { everSet[bit] = true } else { everClear[bit] = true }
                }
            }
        }
        // Bits 48–51 hold the version (0100) and bits 64–65 the variant (10): fixed; the other 122 vary.
        let fixed: Set<Int> = [48, 49, 50, 51, 64, 65]
        let varying = (0..<128).filter { everSet[$0] && everClear[$0] }
        #expect(Set(varying) == Set(0..<128).subtracting(fixed))
    }
}
