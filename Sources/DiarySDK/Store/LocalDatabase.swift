import Foundation

/// Every row a local store holds, with every index and listing of ``StorageSchema`` and a text index of the posts.
///
/// The indices and listings are derived from the declarations (``StorageSchema/allIndices``,
/// ``StorageSchema/allListings``): adding one there is the only edit needed for the local stores to keep it. Rows
/// change only through ``put(_:)``, ``put(contentsOf:)`` and ``remove(_:)``, which keep every index in step.
///
/// A value type meant to be copied: a reader holds a copy (a snapshot) while the writer mutates its own, and a
/// compaction serialises a copy while writes go on. Copies share storage until one of them writes, and a write
/// copies only what it touches, never a whole table:
///
/// - Complexity: A write to a copy shared with another copies, per table, index and listing it touches, the nodes
///   on the path to its key in a ``PersistentMap`` (about log₃₂ of the map's size, each at most 32 entries), the
///   same in one value's rows (``LocalRowSet``), and one chunk of a listing's partition (``SortedKeyIndex``). The
///   cost of a write grows with the size of the database only by those logarithms, never with a copy of a table.
package struct LocalDatabase: Sendable {
    /// Each kind's rows, at ``LocalSchema/tablePosition``.
    private var tables: [PersistentMap<RecordKey, StoreRecord>]
    /// Every declared index, at ``LocalSchema/indexPosition``.
    private var indices: [any LocalIndexStorage]
    /// Every declared listing, at ``LocalSchema/listingPosition``.
    private var listings: [any LocalListingStorage]
    /// The text index of the posts; `nil` until it is built (see ``init(indexingPostText:)``), and then searches
    /// read every post.
    package private(set) var postText: LocalPostTextIndex?

    /// An empty database.
    /// - Parameter indexingPostText: Whether to keep the text index of the posts from the start. A store that loads
    ///   a large snapshot passes `false` so the load does not split every post's text, then builds the index from a
    ///   snapshot off the write path (``makePostTextIndex()``) and hands it to the writer
    ///   (``installPostTextIndex(_:replaying:)``); until then searches walk the posts.
    package init(indexingPostText: Bool = true) {
        tables = RecordKind.allCases.map { _ in PersistentMap() }
        indices = LocalSchema.makeIndices()
        listings = LocalSchema.makeListings()
        postText = indexingPostText ? LocalPostTextIndex() : nil
    }

    /// An empty database built once, for a value that must hold some database but is never read: a finished
    /// transaction's. Building an empty database makes every declared index and listing, which costs more than the
    /// rest of a small write; copying this one retains its storage.
    package static let placeholder = LocalDatabase()

    /// A text index of this database's posts, built on every core at once: O(the posts' text), meant to run on a
    /// snapshot while the writer goes on.
    package func makePostTextIndex() -> LocalPostTextIndex {
        var index = LocalPostTextIndex()
        index.insert(contentsOf: tables[LocalSchema.tablePosition(.post)].values.compactMap {
            if case .post(let post) = $0 { post } else { nil }
        })
        return index
    }

    /// Starts keeping the text index of the posts, from one that ``makePostTextIndex()`` built on an earlier state
    /// of this database.
    /// - Parameters:
    ///   - index: The index of the earlier state.
    ///   - mutations: Every mutation committed since that state, in order, so the index catches up.
    package mutating func installPostTextIndex(_ index: LocalPostTextIndex, replaying mutations: [StoreMutation]) {
        var index = index
        for mutation in mutations {
            switch (mutation.before, mutation.after) {
            case (.post(let before), .post(let after)): index.replace(before, with: after)
            case (.post(let before), _): index.remove(before)
            case (_, .post(let after)): index.insert(after)
            default: break
            }
        }
        postText = index
    }

    /// How many rows of every kind the database holds.
    package var rowCount: Int {
        tables.reduce(0) { $0 + $1.count }
    }

    /// How many rows of one kind the database holds.
    package func rowCount(of kind: RecordKind) -> Int {
        tables[LocalSchema.tablePosition(kind)].count
    }

    /// Every row, in a stable order (by kind as in ``LocalRecordOrder/kinds``, then by key), for snapshots and
    /// inspection.
    package var allRecords: [StoreRecord] {
        var records: [StoreRecord] = []
        records.reserveCapacity(rowCount)
        for kind in LocalRecordOrder.kinds {
            var rows: [(key: RecordKey, record: StoreRecord)] = []
            rows.reserveCapacity(rowCount(of: kind))
            tables[LocalSchema.tablePosition(kind)].forEach { rows.append(($0, $1)) }
            rows.sort { LocalRecordOrder.areInIncreasingOrder($0.key, $1.key) }
            records += rows.map(\.record)
        }
        return records
    }

    /// The row with a key, if any.
    /// The rows of one kind, by key: for reads that look up many rows of the same table.
    func table(_ kind: RecordKind) -> PersistentMap<RecordKey, StoreRecord> {
        tables[LocalSchema.tablePosition(kind)]
    }

    package func record(for key: RecordKey) -> StoreRecord? {
        tables[LocalSchema.tablePosition(key.kind)][key]
    }

    /// Inserts or replaces a row, keeping every index in step.
    /// - Returns: The row it replaced.
    @discardableResult
    package mutating func put(_ record: StoreRecord) -> StoreRecord? {
        let old = self.record(for: record.key)
        guard old != record else { return old }
        if let old { unindex(old) }
        index(record, deferring: false)
        if case .post(let post) = record, postText != nil {
            if case .post(let before) = old { postText!.replace(before, with: post) } else { postText!.insert(post) }
        }
        return old
    }

    /// Inserts or replaces many rows, as when a snapshot is loaded: each listing takes the batch's keys in one merge
    /// instead of one at a time.
    package mutating func put(contentsOf records: some Sequence<StoreRecord>) {
        var newPosts: [PostRecord] = []
        // Rows in their table but not yet in its indices, by table: each index files them in one pass (see
        // `LocalIndex.insert(contentsOf:)`), at the end or before a row is replaced.
        var held = [[StoreRecord]](repeating: [], count: tables.count)
        var isHolding = false
        for record in records {
            let old = self.record(for: record.key)
            guard old != record else { continue }
            if let old {
                if isHolding {
                    fileInIndices(&held)
                    isHolding = false
                }
                // Removing a row flushes the listings' deferred keys first (see `LocalListing.remove`).
                unindex(old)
            }
            let table = LocalSchema.tablePosition(record.kind)
            tables[table].updateValue(record, forKey: record.key)
            if !LocalSchema.indicesOfTable[table].isEmpty {
                held[table].append(record)
                isHolding = true
            }
            for position in LocalSchema.listingsOfTable[table] { listings[position].insert(record, deferring: true) }
            if case .post(let post) = record, postText != nil {
                if case .post(let before) = old {
                    postText!.insert(contentsOf: newPosts)
                    newPosts = []
                    postText!.replace(before, with: post)
                } else {
                    newPosts.append(post)
                }
            }
        }
        if isHolding { fileInIndices(&held) }
        for position in listings.indices { listings[position].flush() }
        postText?.insert(contentsOf: newPosts)
    }

    /// Files the rows `put(contentsOf:)` held back in their tables' indices, and empties `held`.
    private mutating func fileInIndices(_ held: inout [[StoreRecord]]) {
        for table in held.indices where !held[table].isEmpty {
            for position in LocalSchema.indicesOfTable[table] { indices[position].insert(contentsOf: held[table]) }
            held[table].removeAll(keepingCapacity: true)
        }
    }

    /// Removes a row, keeping every index in step.
    /// - Returns: The removed row.
    @discardableResult
    package mutating func remove(_ key: RecordKey) -> StoreRecord? {
        guard let old = record(for: key) else { return nil }
        unindex(old)
        if case .post(let post) = old { postText?.remove(post) }
        return old
    }

    /// Applies a mutation's `after` state (used when replaying a journal).
    package mutating func apply(_ mutation: StoreMutation) {
        if let after = mutation.after {
            put(after)
        } else if let before = mutation.before {
            remove(before.key)
        }
    }

    // MARK: - Index maintenance

    /// Puts a row in its table, the indices and the listings (the text index is the caller's).
    private mutating func index(_ record: StoreRecord, deferring: Bool) {
        let table = LocalSchema.tablePosition(record.kind)
        tables[table].updateValue(record, forKey: record.key)
        for position in LocalSchema.indicesOfTable[table] { indices[position].insert(record) }
        for position in LocalSchema.listingsOfTable[table] { listings[position].insert(record, deferring: deferring) }
    }

    /// Takes a row out of the table, the indices and the listings (the text index is the caller's: a replaced post
    /// keeps its place in it).
    private mutating func unindex(_ record: StoreRecord) {
        let table = LocalSchema.tablePosition(record.kind)
        tables[table].updateValue(nil, forKey: record.key)
        for position in LocalSchema.indicesOfTable[table] { indices[position].remove(record) }
        for position in LocalSchema.listingsOfTable[table] { listings[position].remove(record) }
    }

    // MARK: - Declared indices and listings

    /// The local index of a declaration.
    /// - Throws: ``DiaryError/Code/server`` when the declaration is not in ``StorageSchema/allIndices``.
    package func index<Row, Value>(_ declaration: StorageIndex<Row, Value>) throws -> LocalIndex<Row, Value> {
        guard let position = LocalSchema.indexPosition[declaration.name],
            let index = indices[position] as? LocalIndex<Row, Value>
        else { throw DiaryError(.server, "the local store keeps no index named \(declaration.name)") }
        return index
    }

    /// The local listing of a declaration.
    /// - Throws: ``DiaryError/Code/server`` when the declaration is not in ``StorageSchema/allListings``.
    package func listing<Row, Partition>(
        _ declaration: StorageListing<Row, Partition>
    ) throws -> LocalListing<Row, Partition> {
        guard let position = LocalSchema.listingPosition[declaration.name],
            let listing = listings[position] as? LocalListing<Row, Partition>
        else { throw DiaryError(.server, "the local store keeps no listing named \(declaration.name)") }
        return listing
    }

    /// How many nodes of its tables this database shares with `other`, and how many there are in all: for tests
    /// that check what a write copies.
    package func sharedTableNodes(with other: LocalDatabase) -> (shared: Int, total: Int) {
        zip(tables, other.tables).reduce((shared: 0, total: 0)) { sum, pair in
            let nodes = pair.0.sharedNodes(with: pair.1)
            return (sum.shared + nodes.shared, sum.total + nodes.total)
        }
    }
}
