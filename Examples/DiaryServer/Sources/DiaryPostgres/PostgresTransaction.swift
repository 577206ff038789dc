@_spi(Storage) import DiarySDK
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// A write in progress: the reads of ``PostgresReader`` on the write's `SERIALIZABLE` transaction, plus `put` and
/// `remove`, which record each change as a ``StoreMutation`` (the row before it and after it) for the change log.
///
/// A put reads the row before it, so the body must await its operations one at a time, as the engine's bodies do:
/// two puts of one key started together in one transaction could both see the same row before.
final class PostgresTransaction: StorageTransaction {
    private let reader: PostgresReader
    private let derived: PostgresDerivedRows
    private let recorded = NIOLockedValueBox<[StoreMutation]>([])

    init(reader: PostgresReader) {
        self.reader = reader
        derived = PostgresDerivedRows(layout: reader.layout, logger: reader.logger)
    }

    /// The changes so far, in order.
    var mutations: [StoreMutation] { recorded.withLockedValue { $0 } }

    func put(_ record: StoreRecord) async throws {
        let key = PostgresRowCoding.key(record.key)
        let before = try await reader.record(record.key)
        guard before != record else { return }
        try await derived.write(key: key, kind: record.kind, before: before, after: record, on: reader.connection)
        recorded.withLockedValue { $0.append(StoreMutation(before: before, after: record)) }
    }

    func remove(_ key: RecordKey) async throws {
        let text = PostgresRowCoding.key(key)
        var statement = SQLStatement("DELETE FROM \(reader.layout.recordTable(key.kind)) WHERE key = ")
        statement.bind(text)
        statement.append(" RETURNING doc::text")
        guard let before = try await reader.documents(statement, kind: key.kind).first else { return }
        try await derived.write(key: text, kind: key.kind, before: before, after: nil, on: reader.connection)
        if case .attachment(let attachment) = before {
            // The bytes go with the row, in the same transaction.
            var blob = SQLStatement("DELETE FROM \(reader.layout.qualified(PostgresMigrator.blobsTable)) WHERE attachment_id = ")
            blob.bind(attachment.id.rawValue)
            try await reader.connection.run(blob.query, logger: reader.logger)
        }
        recorded.withLockedValue { $0.append(StoreMutation(before: before, after: nil)) }
    }

    // MARK: - StorageReader

    func record(_ key: RecordKey) async throws -> StoreRecord? {
        try await reader.record(key)
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row] {
        try await reader.rows(index, equalTo: value)
    }

    func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int {
        try await reader.count(index, equalTo: value, where: filter)
    }

    func records(_ keys: [RecordKey]) async throws -> [RecordKey: StoreRecord] {
        try await reader.records(keys)
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value]
    ) async throws -> [Row] {
        try await reader.rows(index, equalToAnyOf: values)
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        ofEach indices: [StorageIndex<Row, Value>], equalTo value: Value
    ) async throws -> [[Row]] {
        try await reader.rows(ofEach: indices, equalTo: value)
    }

    func counts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value], where filter: RowFilter
    ) async throws -> [Value: Int] {
        try await reader.counts(index, equalToAnyOf: values, where: filter)
    }

    func page<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool, from position: ListingPosition,
        limit: Int, where filter: RowFilter
    ) async throws -> [Row] {
        try await reader.page(listing, partition, descending: descending, from: position, limit: limit, where: filter)
    }

    func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int {
        try await reader.count(listing, partition, where: filter)
    }

    func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord] {
        try await reader.searchPosts(query, from: position, limit: limit, where: filter)
    }

    func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int {
        try await reader.countPosts(matching: query, where: filter)
    }
}
