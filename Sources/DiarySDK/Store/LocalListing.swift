import Foundation

/// A listing of the local stores, of any row and partition type: what ``LocalDatabase`` keeps one of per
/// ``StorageSchema/allListings`` declaration.
package protocol LocalListingStorage: Sendable {
    /// The table it lists.
    var kind: RecordKind { get }
    /// Lists a row (of the listing's table). With `deferring`, its keys wait until ``flush()``, which merges every
    /// waiting key in one pass (for loading a snapshot).
    mutating func insert(_ record: StoreRecord, deferring: Bool)
    /// Takes a row (as it was listed) out of the listing.
    mutating func remove(_ record: StoreRecord)
    /// Merges the keys that ``insert(_:deferring:)`` deferred.
    mutating func flush()
}

/// The local form of a ``StorageListing``: each partition's sort keys in order, and, when the listing is filtered,
/// how many rows of each partition each author wrote (see ``LocalAuthorCounts``).
///
/// - Complexity: Inserting or removing a row is O(log n) plus moving at most one chunk of keys
///   (``SortedKeyIndex``). A write to a copy shared with a reader copies the path to the partition in the partition
///   map, one chunk and the chunk list of the partition's index.
package struct LocalListing<Row: Sendable, Partition: Hashable & Sendable>: LocalListingStorage {
    /// The declaration.
    package let declaration: StorageListing<Row, Partition>
    private var partitions = PersistentMap<Partition, SortedKeyIndex>()
    private var authors = LocalAuthorCounts<Partition>()
    private var deferred: [Partition: [SortKey]] = [:]

    /// An empty listing for a declaration.
    package init(_ declaration: StorageListing<Row, Partition>) {
        self.declaration = declaration
    }

    package var kind: RecordKind { declaration.kind }

    package mutating func insert(_ record: StoreRecord, deferring: Bool) {
        guard let row = declaration.table.unwrap(record) else { return }
        let authorship = declaration.author?(row)
        for entry in declaration.entries(row) {
            if deferring {
                deferred[entry.partition, default: []].append(entry.key)
            } else {
                let inserted = partitions.modify(entry.partition) { index -> Bool in
                    var keys = index ?? SortedKeyIndex()
                    index = nil
                    defer { index = keys }
                    return keys.insert(entry.key)
                }
                guard inserted else { continue }
            }
            if let authorship { authors.add(authorship, in: entry.partition, delta: 1) }
        }
    }

    package mutating func remove(_ record: StoreRecord) {
        guard let row = declaration.table.unwrap(record) else { return }
        flush()
        let authorship = declaration.author?(row)
        for entry in declaration.entries(row) {
            let removed = partitions.modify(entry.partition) { index -> Bool in
                guard var keys = index else { return false }
                index = nil
                defer { index = keys.isEmpty ? nil : keys }
                return keys.remove(entry.key)
            }
            if removed, let authorship { authors.add(authorship, in: entry.partition, delta: -1) }
        }
    }

    package mutating func flush() {
        guard !deferred.isEmpty else { return }
        for (partition, keys) in deferred {
            partitions.modify(partition) { index in
                var merged = index ?? SortedKeyIndex()
                index = nil
                merged.insert(contentsOf: keys)
                index = merged
            }
        }
        deferred = [:]
    }

    /// A partition's keys in order (descending or ascending), starting just past `bound` (from the first when
    /// `nil`).
    package func keys(in partition: Partition, descending: Bool, after bound: SortKey?) -> SortedKeyIndex.Keys {
        (partitions[partition] ?? SortedKeyIndex()).keys(descending: descending, after: bound)
    }

    /// How many rows a partition lists.
    package func count(in partition: Partition) -> Int {
        partitions[partition]?.count ?? 0
    }

    /// How many rows of a partition pass `filter` (every row, if the listing has no author).
    /// - Complexity: O(number of hidden authors in `filter`).
    package func count(in partition: Partition, where filter: RowFilter) -> Int {
        let total = count(in: partition)
        guard declaration.author != nil else { return total }
        return authors.count(total: total, in: partition, where: filter)
    }
}

extension LocalListing {
    /// How many nodes of its maps this listing shares with `other` (the same storage), and how many it has: for
    /// tests that check what a write copies.
    package func sharedNodes(with other: LocalListing) -> (shared: Int, total: Int) {
        let partitions = partitions.sharedNodes(with: other.partitions)
        let authors = authors.sharedNodes(with: other.authors)
        return (partitions.shared + authors.shared, partitions.total + authors.total)
    }
}
