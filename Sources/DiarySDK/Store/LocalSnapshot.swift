import Foundation

/// A committed state of a local store, read through the storage contract: what a local store's
/// ``DiaryStorage/read(_:_:)`` hands its body.
///
/// It holds its own copy of the database, so it never waits for a writer and never sees a later write: the writer
/// mutates another copy, and the two share storage except where the writer has written (see ``LocalDatabase``).
package struct LocalSnapshot: StorageReader {
    /// The state read.
    package let database: LocalDatabase

    /// A snapshot of a database value.
    package init(_ database: LocalDatabase) {
        self.database = database
    }

    package func record(_ key: RecordKey) async throws -> StoreRecord? {
        database.record(for: key)
    }

    package func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row] {
        try database.rows(index, equalTo: value)
    }

    package func forEachRow<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, _ body: (Row) throws -> Void
    ) async throws {
        try database.forEachRow(index, equalTo: value, body)
    }

    package func forEachRow<Row: Sendable, Value: Hashable & Sendable, Fields: Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, reading projection: StorageProjection<Row, Fields>,
        _ body: (Fields) throws -> Void
    ) async throws {
        try database.forEachRow(index, equalTo: value, reading: projection, body)
    }

    package func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int {
        try database.count(index, equalTo: value, where: filter)
    }

    package func page<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool,
        from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [Row] {
        try database.page(listing, partition, descending: descending, from: position, limit: limit, where: filter)
    }

    package func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int {
        try database.count(listing, partition, where: filter)
    }

    package func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord] {
        try database.searchPosts(query, from: position, limit: limit, where: filter)
    }

    package func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int {
        try database.countPosts(matching: query, where: filter)
    }
}
