@_spi(Storage) import DiarySDK
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// A write in progress: the reads of ``PostgresReader`` on the write's `SERIALIZABLE` transaction, plus `put` and
/// `remove`, which record each change as a ``StoreMutation`` (the row before it and after it) for the change log.
///
/// A put needs the row before it (to move the row's index and listing entries). It remembers every row the body
/// read or wrote by key, which the transaction's snapshot keeps true, so a put of a row the body read first (an
/// edit, which checks the row's owner) reads nothing more; a put of a row it never read is tried as an insert
/// (`ON CONFLICT DO NOTHING`, with its entries, in one statement) and only when the row is there is it read and
/// replaced. The body must await its operations one at a time, as the engine's bodies do.
final class PostgresTransaction: StorageTransaction {
    private struct State {
        var mutations: [StoreMutation] = []
        /// Rows as this transaction sees them, by key (`nil`: known to be absent).
        var known: [RecordKey: StoreRecord?] = [:]
        var hasSavepoint = false
    }

    private let reader: PostgresReader
    private let derived: PostgresDerivedRows
    private let state = NIOLockedValueBox(State())

    init(reader: PostgresReader) {
        self.reader = reader
        derived = PostgresDerivedRows(layout: reader.layout, logger: reader.logger)
    }

    /// The changes so far, in order.
    var mutations: [StoreMutation] { state.withLockedValue { $0.mutations } }

    /// Whether the savepoint `body` was taken: the transaction has changed something since.
    var hasSavepoint: Bool { state.withLockedValue { $0.hasSavepoint } }

    func put(_ record: StoreRecord) async throws {
        let key = PostgresRowCoding.key(record.key)
        let before: StoreRecord?
        if let known = state.withLockedValue({ $0.known[record.key] }) {
            before = known
        } else {
            try await takeSavepoint()
            if try await derived.insertIfAbsent(record, key: key, on: reader.connection) {
                recordChange(StoreMutation(before: nil, after: record), key: record.key)
                return
            }
            before = try await reader.record(record.key)
        }
        guard before != record else { return }
        try await takeSavepoint()
        try await derived.write(key: key, kind: record.kind, before: before, after: record, on: reader.connection)
        recordChange(StoreMutation(before: before, after: record), key: record.key)
    }

    func remove(_ key: RecordKey) async throws {
        if case .some(.none) = state.withLockedValue({ $0.known[key] }) { return }
        try await takeSavepoint()
        let text = PostgresRowCoding.key(key)
        var statement = SQLStatement("DELETE FROM \(reader.layout.recordTable(key.kind)) WHERE key = ")
        statement.bind(text)
        statement.append(" RETURNING doc::text")
        guard let before = try await reader.documents(statement, kind: key.kind).first else {
            state.withLockedValue { $0.known[key] = .some(nil) }
            return
        }
        try await derived.write(key: text, kind: key.kind, before: before, after: nil, on: reader.connection)
        if case .attachment(let attachment) = before {
            // The bytes go with the row, in the same transaction.
            var blob = SQLStatement("DELETE FROM \(reader.layout.qualified(PostgresMigrator.blobsTable)) WHERE attachment_id = ")
            blob.bind(attachment.id.rawValue)
            try await reader.connection.run(blob, logger: reader.logger)
        }
        recordChange(StoreMutation(before: before, after: nil), key: key)
    }

    /// Takes the savepoint `body` before the first change, so a rule that fails after changes can undo them all.
    private func takeSavepoint() async throws {
        guard !hasSavepoint else { return }
        try await reader.connection.run("SAVEPOINT body", logger: reader.logger)
        state.withLockedValue { $0.hasSavepoint = true }
    }

    private func recordChange(_ mutation: StoreMutation, key: RecordKey) {
        state.withLockedValue { state in
            state.mutations.append(mutation)
            state.known[key] = .some(mutation.after)
        }
    }

    /// Remembers what a read found: `found` for each key asked.
    private func remember(_ keys: some Sequence<RecordKey>, found: [RecordKey: StoreRecord]) {
        state.withLockedValue { state in
            for key in keys { state.known[key] = .some(found[key]) }
        }
    }

    // MARK: - StorageReader

    func record(_ key: RecordKey) async throws -> StoreRecord? {
        if let known = state.withLockedValue({ $0.known[key] }) { return known }
        let found = try await reader.record(key)
        state.withLockedValue { $0.known[key] = .some(found) }
        return found
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
        let found = try await reader.records(keys)
        remember(keys, found: found)
        return found
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

    func read(_ batch: StorageReadBatch) async throws -> StorageReadBatch.Answers {
        let answers = try await reader.read(batch)
        for (number, part) in batch.parts.enumerated() {
            if case .records(let keys) = part, let found = answers.records(ofPart: number) { remember(keys, found: found) }
        }
        return answers
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
