import Foundation

/// A hash map split into a fixed number of shards (``shardCount`` dictionaries chosen by the key's hash), so that a
/// copy-on-write of a shared map copies one shard, not the whole map.
///
/// The local stores hand out copies of their database to readers and to a compaction while a writer goes on
/// mutating its own copy. With a single dictionary the first write after such a copy would duplicate the whole
/// table. Here a write to a shared map copies the shard array (``shardCount`` references) and the one shard the key
/// falls in, about `count / shardCount` entries; the other shards stay shared between the copies.
///
/// A map that has never held a key allocates no shards: a database declares some forty indices and listings, and most
/// of them stay empty in a small store, where making 256 shards for each was most of the cost of opening it.
///
/// - Complexity: Lookups, inserts and removals are O(1) on average. A mutation of a map whose storage is shared with
///   another copy additionally copies O(``shardCount`` + `count / shardCount`) entries.
package struct ShardedMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// How many shards every map has.
    package static var shardCount: Int { 256 }

    /// One shard's entries, in a box of its own so that copies of the map share it until one of them writes to it.
    private final class Shard: @unchecked Sendable {
        // Only mutated while uniquely referenced (see `mutableShard(_:)`), so sharing it between threads is safe.
        var entries: [Key: Value]

        init(_ entries: [Key: Value]) {
            self.entries = entries
        }
    }

    /// The shards, or none until the first key is stored.
    private var shards: [Shard] = []
    /// How many keys the map holds.
    package private(set) var count = 0

    /// An empty map, which allocates nothing until a key is stored.
    package init() {}

    /// Whether the map holds no key.
    package var isEmpty: Bool { count == 0 }

    /// The shard a key lives in.
    private static func shard(of key: Key) -> Int {
        key.hashValue & (shardCount - 1)
    }

    /// Shard `index`, copied first if another copy of the map shares it.
    private mutating func mutableShard(_ index: Int) -> Shard {
        if shards.isEmpty { shards = (0..<Self.shardCount).map { _ in Shard([:]) } }
        if !isKnownUniquelyReferenced(&shards[index]) { shards[index] = Shard(shards[index].entries) }
        return shards[index]
    }

    /// The value for a key, if any.
    package subscript(key: Key) -> Value? {
        shards.isEmpty ? nil : shards[Self.shard(of: key)].entries[key]
    }

    /// Sets or removes the value for a key.
    /// - Returns: The value it replaced.
    @discardableResult
    package mutating func updateValue(_ value: Value?, forKey key: Key) -> Value? {
        if value == nil && shards.isEmpty { return nil }
        let shard = mutableShard(Self.shard(of: key))
        let old: Value?
        if let value {
            old = shard.entries.updateValue(value, forKey: key)
            if old == nil { count += 1 }
        } else {
            old = shard.entries.removeValue(forKey: key)
            if old != nil { count -= 1 }
        }
        return old
    }

    /// Changes the value for a key in place: `body` gets the value (`nil` when absent) and leaves the new one
    /// (`nil` to remove the key). The value is moved out of the map while `body` runs, so a value with storage of
    /// its own (a set, a sorted index) that no other copy shares is mutated without being copied.
    @discardableResult
    package mutating func modify<Result>(_ key: Key, _ body: (inout Value?) throws -> Result) rethrows -> Result {
        let shard = mutableShard(Self.shard(of: key))
        var value = shard.entries.removeValue(forKey: key)
        let existed = value != nil
        defer {
            if let value { shard.entries[key] = value }
            count += (value != nil ? 1 : 0) - (existed ? 1 : 0)
        }
        return try body(&value)
    }

    /// Every key and value, shard by shard, in no particular order.
    package func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        for shard in shards {
            for (key, value) in shard.entries { try body(key, value) }
        }
    }

    /// Every value, in no particular order.
    package var values: [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        forEach { values.append($1) }
        return values
    }

    /// Every key, in no particular order.
    package var keys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        forEach { key, _ in keys.append(key) }
        return keys
    }

    /// How many shards this map shares with `other` (the same storage, not equal contents): for tests that check a
    /// copy-on-write copied only the shard it had to.
    package func sharedShardCount(with other: ShardedMap) -> Int {
        // Two maps that never held a key share everything there is: nothing was copied.
        if shards.isEmpty && other.shards.isEmpty { return Self.shardCount }
        return zip(shards, other.shards).filter { $0 === $1 }.count
    }
}
