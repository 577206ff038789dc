@testable import DiarySDK
import Foundation
import Testing

/// ``PersistentMap`` against `Dictionary`, the model it must agree with, under random operations, with keys whose
/// hashes collide in every way the trie has to handle, and with copies written independently.
@Suite("Persistent map")
struct PersistentMapTests {
    /// A key whose hash input is chosen, so tests can give keys equal hashes.
    struct Key: Hashable, Sendable, CustomStringConvertible {
        var id: Int
        var hash: Int

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (lhs: Key, rhs: Key) -> Bool { lhs.id == rhs.id }
        var description: String { "\(id)#\(hash)" }
    }

    /// A small deterministic generator, so a failure replays.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private func expectSame(_ map: PersistentMap<Key, Int>, _ model: [Key: Int], _ context: String) {
        #expect(map.count == model.count, "\(context)")
        var seen: [Key: Int] = [:]
        map.forEach { seen[$0] = $1 }
        #expect(seen == model, "\(context)")
        for (key, value) in model { #expect(map[key] == value, "\(context): \(key)") }
    }

    /// Random puts, replacements and removals over a key space small enough to revisit keys, with hashes drawn
    /// from 46 values, so that about nine keys share each whole hash (collision nodes at the bottom of the trie);
    /// which hashes share a prefix is left to the hasher.
    @Test(arguments: [1, 2, 3])
    func randomOperationsAgreeWithADictionary(seed: UInt64) {
        var generator = Generator(state: seed)
        var map = PersistentMap<Key, Int>()
        var model: [Key: Int] = [:]
        let hashes = [0, 1, 1 << 60, (1 << 60) | 1, Int.min, -1] + (0..<40).map { _ in Int.random(in: .min ... .max, using: &generator) }
        let keys = (0..<400).map { Key(id: $0, hash: hashes[Int.random(in: 0..<hashes.count, using: &generator)]) }
        var copies: [(PersistentMap<Key, Int>, [Key: Int])] = []
        for step in 0..<6_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                let value = Int.random(in: 0..<1_000, using: &generator)
                #expect(map.updateValue(value, forKey: key) == model.updateValue(value, forKey: key))
            case 5..<8:
                #expect(map.removeValue(forKey: key) == model.removeValue(forKey: key))
            default:
                let delta = Int.random(in: -2...2, using: &generator)
                map.modify(key) { value in value = value.map { $0 + delta }.flatMap { $0 < 0 ? nil : $0 } }
                if let old = model[key] { model[key] = old + delta < 0 ? nil : old + delta }
            }
            if step % 500 == 0 { copies.append((map, model)) }
            if step % 1_000 == 999 { expectSame(map, model, "seed \(seed) step \(step)") }
        }
        expectSame(map, model, "seed \(seed) end")
        // Every copy taken along the way still holds what it held then.
        for (index, (copy, expected)) in copies.enumerated() { expectSame(copy, expected, "copy \(index)") }
        for key in keys { map.removeValue(forKey: key) }
        #expect(map.isEmpty && map.depth == 0)
    }

    @Test func keysWithTheSameHashAreKeptApartAndRemovedOneByOne() {
        var map = PersistentMap<Key, Int>()
        let keys = (0..<50).map { Key(id: $0, hash: 42) }
        for key in keys { map.updateValue(key.id, forKey: key) }
        #expect(map.count == 50)
        for key in keys { #expect(map[key] == key.id) }
        #expect(map[Key(id: 99, hash: 42)] == nil)
        for key in keys.prefix(49) { #expect(map.removeValue(forKey: key) == key.id) }
        #expect(map.count == 1 && map[keys[49]] == 49)
    }

    /// A write to one of two copies copies the nodes on its key's path and nothing else; the other copy is as it
    /// was, and a lookup that misses copies nothing.
    @Test func aWriteToASharedCopyCopiesOnlyThePathToItsKey() {
        var map = PersistentMap<Int, Int>()
        for number in 0..<100_000 { map.updateValue(number, forKey: number) }
        let reader = map
        map.updateValue(-1, forKey: 7)
        let nodes = map.sharedNodes(with: reader)
        #expect(nodes.total > 3_000)
        #expect((1...map.depth).contains(nodes.total - nodes.shared), "\(nodes), depth \(map.depth)")
        #expect(reader[7] == 7 && map[7] == -1)

        var other = reader
        #expect(other.removeValue(forKey: 1_000_000) == nil)
        #expect(other.sharedNodes(with: reader).shared == other.sharedNodes(with: reader).total)
    }
}
