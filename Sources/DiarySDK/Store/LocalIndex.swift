import Foundation

/// An index of the local stores, of any row and value type: what ``LocalDatabase`` keeps one of per
/// ``StorageSchema/allIndices`` declaration and updates on every put and remove.
package protocol LocalIndexStorage: Sendable {
    /// The table it indexes.
    var kind: RecordKind { get }
    /// Files a row (of the index's table) under its values.
    mutating func insert(_ record: StoreRecord)
    /// Files many rows (of the index's table, none of them filed yet), as when a store is loaded: the same as
    /// inserting them one by one.
    mutating func insert(contentsOf records: [StoreRecord])
    /// Takes a row (as it was filed) out of the index.
    mutating func remove(_ record: StoreRecord)
}

/// The local form of a ``StorageIndex``: the rows under each value (a covering index: the rows themselves, by key,
/// so a read needs no lookup in the table), and per value how many rows each author wrote when the index is
/// filtered.
///
/// - Complexity: Inserting or removing a row is O(number of its values). A write to a copy shared with a reader
///   copies the path to the value in the value map and at most the path to the row in that value's rows (see
///   ``PersistentMap`` and ``LocalRowSet``).
package struct LocalIndex<Row: Sendable, Value: Hashable & Sendable>: LocalIndexStorage {
    /// The declaration.
    package let declaration: StorageIndex<Row, Value>
    private var keys = PersistentMap<Value, LocalRowSet>()
    private var authors = LocalAuthorCounts<Value>()

    /// An empty index for a declaration.
    package init(_ declaration: StorageIndex<Row, Value>) {
        self.declaration = declaration
    }

    package var kind: RecordKind { declaration.kind }

    package mutating func insert(_ record: StoreRecord) {
        update(record, inserting: true)
    }

    package mutating func remove(_ record: StoreRecord) {
        update(record, inserting: false)
    }

    /// Groups the rows by value first, then changes each value's rows once: a load pays one lookup in the value map
    /// per value instead of one per row and value.
    package mutating func insert(contentsOf records: [StoreRecord]) {
        var grouped: [Value: [(record: StoreRecord, authorship: Authorship?)]] = [:]
        for record in records {
            guard let row = declaration.table.unwrap(record) else { continue }
            var values = declaration.values(row)
            if values.count > 1 { values = Array(Set(values)) }
            let authorship = declaration.author?(row)
            for value in values { grouped[value, default: []].append((record, authorship)) }
        }
        for (value, group) in grouped {
            let added = keys.modify(value) { set -> [Bool] in
                var rows = set ?? LocalRowSet()
                set = nil
                let added = group.map { rows.insert($0.record, for: $0.record.key) }
                set = rows.isEmpty ? nil : rows
                return added
            }
            for (member, wasAdded) in zip(group, added) where wasAdded {
                if let authorship = member.authorship { authors.add(authorship, in: value, delta: 1) }
            }
        }
    }

    private mutating func update(_ record: StoreRecord, inserting: Bool) {
        guard let row = declaration.table.unwrap(record) else { return }
        let key = record.key
        var values = declaration.values(row)
        if values.count > 1 { values = Array(Set(values)) }
        let authorship = declaration.author?(row)
        for value in values {
            let changed = keys.modify(value) { set -> Bool in
                var rows = set ?? LocalRowSet()
                set = nil
                let changed = inserting ? rows.insert(record, for: key) : rows.remove(key)
                set = rows.isEmpty ? nil : rows
                return changed
            }
            if changed, let authorship { authors.add(authorship, in: value, delta: inserting ? 1 : -1) }
        }
    }

    /// The keys of the rows filed under `value`, in no particular order.
    package func keys(equalTo value: Value) -> [RecordKey] {
        keys[value]?.keys ?? []
    }

    /// Calls `body` with each row filed under `value`, in no particular order, and says how many there are first
    /// (`body` is not called when there are none).
    package func forEachRecord(equalTo value: Value, count: (Int) -> Void, _ body: (StoreRecord) throws -> Void) rethrows {
        guard let set = keys[value] else { return }
        count(set.count)
        try set.forEachRecord(body)
    }

    /// How many rows are filed under `value` and pass `filter` (every row, if the index has no author).
    /// - Complexity: O(number of hidden authors in `filter`).
    package func count(equalTo value: Value, where filter: RowFilter) -> Int {
        let total = keys[value]?.count ?? 0
        guard declaration.author != nil else { return total }
        return authors.count(total: total, in: value, where: filter)
    }
}

extension LocalIndex {
    /// How many nodes of its maps this index shares with `other` (the same storage), and how many it has: for
    /// tests that check what a write copies.
    package func sharedNodes(with other: LocalIndex) -> (shared: Int, total: Int) {
        let keys = keys.sharedNodes(with: other.keys)
        let authors = authors.sharedNodes(with: other.authors)
        return (keys.shared + authors.shared, keys.total + authors.total)
    }
}

extension LocalIndex {
    /// Whether the row with `key` is filed under `value`.
    package func contains(_ key: RecordKey, equalTo value: Value) -> Bool {
        keys[value]?.contains(key) ?? false
    }
}
