import Foundation

/// The rows filed under one value of an index (the entries of an author's month, the members of a book), by key: a
/// covering index entry, so reading them needs no lookup in the table, and a map that stays cheap to copy-on-write
/// whatever its size.
///
/// One row is kept inline (most values of most indices name one row); up to ``smallLimit`` rows in one dictionary,
/// which a write to a shared copy copies whole; past that in a ``PersistentMap``, of which such a write copies only
/// the path to the row. A row is a ``StoreRecord``, a reference to the table's own boxed row, so filing it costs a
/// pointer, not a copy.
///
/// - Complexity: `insert`, `remove` and `contains` are O(log₃₂ `count`) at most; a write to shared storage copies at
///   most O(``smallLimit`` + 32 · log₃₂ `count`) entries.
package struct LocalRowSet: Sendable {
    private enum Storage: Sendable {
        case empty
        case one(RecordKey, StoreRecord)
        case small([RecordKey: StoreRecord])
        case large(PersistentMap<RecordKey, StoreRecord>)
    }

    /// The most rows kept in one dictionary.
    package static var smallLimit: Int { 32 }

    private var storage = Storage.empty
    /// How many rows the set holds.
    package private(set) var count = 0

    /// An empty set.
    package init() {}

    /// Whether the set holds no row.
    package var isEmpty: Bool { count == 0 }

    /// Whether the set holds the row with a key.
    package func contains(_ key: RecordKey) -> Bool {
        switch storage {
        case .empty: false
        case .one(let only, _): only == key
        case .small(let rows): rows[key] != nil
        case .large(let rows): rows[key] != nil
        }
    }

    /// Files a row under its key, replacing the row filed with that key.
    /// - Returns: `false` if a row with that key was filed already.
    @discardableResult
    package mutating func insert(_ record: StoreRecord, for key: RecordKey) -> Bool {
        let added: Bool
        switch storage {
        case .empty:
            storage = .one(key, record)
            added = true
        case .one(let only, let row):
            added = only != key
            storage = added ? .small([only: row, key: record]) : .one(key, record)
        case .small(var rows):
            storage = .empty
            added = rows.updateValue(record, forKey: key) == nil
            if rows.count > Self.smallLimit {
                var large = PersistentMap<RecordKey, StoreRecord>()
                for (key, record) in rows { large.updateValue(record, forKey: key) }
                storage = .large(large)
            } else {
                storage = .small(rows)
            }
        case .large(var rows):
            storage = .empty
            added = rows.updateValue(record, forKey: key) == nil
            storage = .large(rows)
        }
        if added { count += 1 }
        return added
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
        case .small(var rows):
            storage = .empty
            let removed = rows.removeValue(forKey: key) != nil
            storage = rows.count == 1 ? .one(rows.first!.key, rows.first!.value) : .small(rows)
            guard removed else { return false }
        case .large(var rows):
            storage = .empty
            let removed = rows.removeValue(forKey: key) != nil
            if rows.count <= Self.smallLimit / 2 {
                var small: [RecordKey: StoreRecord] = [:]
                rows.forEach { small[$0] = $1 }
                storage = .small(small)
            } else {
                storage = .large(rows)
            }
            guard removed else { return false }
        }
        count -= 1
        return true
    }

    /// Calls `body` with every key and row, in no particular order.
    package func forEach(_ body: (RecordKey, StoreRecord) throws -> Void) rethrows {
        switch storage {
        case .empty: break
        case .one(let key, let record): try body(key, record)
        case .small(let rows): for (key, record) in rows { try body(key, record) }
        case .large(let rows): try rows.forEach(body)
        }
    }

    /// Calls `body` with every row, in no particular order.
    package func forEachRecord(_ body: (StoreRecord) throws -> Void) rethrows {
        switch storage {
        case .empty: break
        case .one(_, let record): try body(record)
        case .small(let rows): for record in rows.values { try body(record) }
        case .large(let rows): try rows.forEachValue(body)
        }
    }

    /// Every key, in no particular order.
    package var keys: [RecordKey] {
        var keys: [RecordKey] = []
        keys.reserveCapacity(count)
        forEach { key, _ in keys.append(key) }
        return keys
    }
}
