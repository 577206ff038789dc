import Foundation

/// The rows filed under one value of an index (the entries of an author's month, the members of a book), by key: a
/// covering index entry, so reading them needs no lookup in the table, and a map that stays cheap to copy-on-write
/// whatever its size.
///
/// As ``LocalKeySet``: one row is kept inline (most values of most indices name one row); up to
/// ``LocalKeySet/shardThreshold`` rows in one dictionary; past that they are spread over
/// ``ShardedMap/shardCount`` dictionaries by the key's hash, so a write to a copy shared with a reader copies one of
/// them and the list of them, never the whole map. A row is a ``StoreRecord``, a reference to the table's own boxed
/// row, so filing it costs a pointer, not a copy.
///
/// - Complexity: `insert`, `remove` and `contains` are O(1) on average; a write to shared storage copies at most
///   O(``LocalKeySet/shardThreshold`` + `count / 256`) entries.
package struct LocalRowSet: Sendable {
    private enum Storage: Sendable {
        case empty
        case one(RecordKey, StoreRecord)
        case rows([RecordKey: StoreRecord])
        case sharded([[RecordKey: StoreRecord]])
    }

    private var storage = Storage.empty
    /// How many rows the set holds.
    package private(set) var count = 0

    /// An empty set.
    package init() {}

    /// Whether the set holds no row.
    package var isEmpty: Bool { count == 0 }

    private static var threshold: Int { LocalKeySet<RecordKey>.shardThreshold }

    private static func shard(of key: RecordKey) -> Int {
        key.hashValue & (ShardedMap<RecordKey, StoreRecord>.shardCount - 1)
    }

    /// Whether the set holds the row with a key.
    package func contains(_ key: RecordKey) -> Bool {
        switch storage {
        case .empty: false
        case .one(let only, _): only == key
        case .rows(let rows): rows[key] != nil
        case .sharded(let shards): shards[Self.shard(of: key)][key] != nil
        }
    }

    /// Files a row under its key, replacing the row filed with that key.
    /// - Returns: `false` if a row with that key was filed already.
    @discardableResult
    package mutating func insert(_ record: StoreRecord, for key: RecordKey) -> Bool {
        switch storage {
        case .empty:
            storage = .one(key, record)
        case .one(let only, let row):
            guard only != key else {
                storage = .one(key, record)
                return false
            }
            storage = .rows([only: row, key: record])
        case .rows(var rows):
            storage = .empty
            let added = rows.updateValue(record, forKey: key) == nil
            storage = rows.count > Self.threshold ? .sharded(Self.spread(rows)) : .rows(rows)
            guard added else { return false }
        case .sharded(var shards):
            storage = .empty
            let added = shards[Self.shard(of: key)].updateValue(record, forKey: key) == nil
            storage = .sharded(shards)
            guard added else { return false }
        }
        count += 1
        return true
    }

    /// Takes the row with a key out.
    /// - Returns: `false` if the set did not hold it.
    @discardableResult
    package mutating func remove(_ key: RecordKey) -> Bool {
        switch storage {
        case .empty:
            return false
        case .one(let only, _):
            guard only == key else { return false }
            storage = .empty
        case .rows(var rows):
            storage = .empty
            let removed = rows.removeValue(forKey: key) != nil
            storage = rows.count == 1 ? .one(rows.first!.key, rows.first!.value) : .rows(rows)
            guard removed else { return false }
        case .sharded(var shards):
            storage = .empty
            let removed = shards[Self.shard(of: key)].removeValue(forKey: key) != nil
            storage = .sharded(shards)
            guard removed else { return false }
            if count - 1 < Self.threshold / 4 {
                storage = .rows(shards.reduce(into: [:]) { $0.merge($1) { first, _ in first } })
            }
        }
        count -= 1
        return true
    }

    /// Calls `body` with every key and row, in no particular order.
    package func forEach(_ body: (RecordKey, StoreRecord) throws -> Void) rethrows {
        switch storage {
        case .empty: break
        case .one(let key, let record): try body(key, record)
        case .rows(let rows): for (key, record) in rows { try body(key, record) }
        case .sharded(let shards):
            for shard in shards {
                for (key, record) in shard { try body(key, record) }
            }
        }
    }

    /// Every key, in no particular order.
    package var keys: [RecordKey] {
        var keys: [RecordKey] = []
        keys.reserveCapacity(count)
        forEach { key, _ in keys.append(key) }
        return keys
    }

    private static func spread(_ rows: [RecordKey: StoreRecord]) -> [[RecordKey: StoreRecord]] {
        var shards = [[RecordKey: StoreRecord]](repeating: [:], count: ShardedMap<RecordKey, StoreRecord>.shardCount)
        for (key, record) in rows { shards[shard(of: key)][key] = record }
        return shards
    }
}
