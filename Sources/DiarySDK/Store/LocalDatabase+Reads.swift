import Foundation

/// The reads of ``StorageReader`` on a database value, synchronous: ``LocalSnapshot`` and ``LocalTransaction``
/// answer the contract with them.
extension LocalDatabase {
    /// The rows whose index value equals `value`, in no particular order.
    /// - Throws: ``DiaryError/Code/server`` for an index not declared in ``StorageSchema``.
    package func rows<Row, Value>(_ index: StorageIndex<Row, Value>, equalTo value: Value) throws -> [Row] {
        var rows: [Row] = []
        try self.index(index).forEachRecord(equalTo: value, count: { rows.reserveCapacity($0) }) { record in
            if let row = index.table.unwrap(record) { rows.append(row) }
        }
        return rows
    }

    /// Calls `body` with each row filed under `value`, in no particular order, straight from the index: no array of
    /// rows is made (for a month of a heavy writer's entries, making it cost several times the rest of the query).
    // Specialised for the loops over many entries (a month calendar, a streak): through the storage protocol the
    // generic version runs, which looks up the metadata of `Row?` for every row.
    @_specialize(where Row == Diary, Value == AuthorMonth)
    @_specialize(where Row == Diary, Value == User.ID)
    package func forEachRow<Row, Value>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, _ body: (Row) throws -> Void
    ) throws {
        try self.index(index).forEachRecord(equalTo: value, count: { _ in }) { record in
            if let row = index.table.unwrap(record) { try body(row) }
        }
    }

    /// Calls `body` with a projection's fields of each row filed under `value`, in no particular order, read from
    /// the stored records: the rows are not copied (for a month of entries, copying each entry retained its text and
    /// arrays, which sit elsewhere in memory, and that was most of a calendar's time at 100,000 entries).
    @_specialize(where Row == Diary, Value == AuthorMonth, Fields == DiaryCalendarFields)
    @_specialize(where Row == Diary, Value == User.ID, Fields == DiaryCalendarFields)
    package func forEachRow<Row, Value, Fields>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, reading projection: StorageProjection<Row, Fields>,
        _ body: (Fields) throws -> Void
    ) throws {
        try self.index(index).forEachRecord(equalTo: value, count: { _ in }) { record in
            if let fields = projection.fields(record) { try body(fields) }
        }
    }

    /// How many rows with the index value `value` pass `filter`.
    /// - Complexity: O(number of hidden authors in `filter`).
    package func count<Row, Value>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) throws -> Int {
        try self.index(index).count(equalTo: value, where: filter)
    }

    /// Up to `limit` rows of a listing's partition that pass `filter` (ignored when the listing has no author), in
    /// the listing's order, starting at `position`.
    /// - Complexity: O(`limit` + rows skipped), where the rows skipped are those left out by the filter and, for
    ///   ``ListingPosition/offset(_:)``, the offset.
    package func page<Row, Partition>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool,
        from position: ListingPosition, limit: Int, where filter: RowFilter
    ) throws -> [Row] {
        let local = try self.listing(listing)
        guard limit > 0 else { return [] }
        var bound: SortKey?
        var skip = 0
        switch position {
        case .start: break
        case .after(let key): bound = key
        case .offset(let count): skip = max(0, count)
        }
        let admits: ((Row) -> Bool)? =
            if let author = listing.author, !filter.admitsEverything { { filter.admits(author($0)) } } else { nil }
        var keys = local.keys(in: partition, descending: descending, after: bound)
        if admits == nil {
            while skip > 0, keys.next() != nil { skip -= 1 }
        }
        var rows: [Row] = []
        while let key = keys.next() {
            guard let row = record(for: listing.rowKey(partition, key)).flatMap(listing.table.unwrap) else { continue }
            if let admits, !admits(row) { continue }
            if skip > 0 {
                skip -= 1
                continue
            }
            rows.append(row)
            if rows.count == limit { break }
        }
        return rows
    }

    /// How many rows of a listing's partition pass `filter`.
    /// - Complexity: O(number of hidden authors in `filter`).
    package func count<Row, Partition>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) throws -> Int {
        try self.listing(listing).count(in: partition, where: filter)
    }
}
