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
/// replaced. That insert waits for the body's next operation, and when there is none it goes in one statement with
/// the change log row (``finish()``): a body that reads, then creates one row, writes in one round trip. The body
/// must await its operations one at a time, as the engine's bodies do.
final class PostgresTransaction: StorageTransaction {
    /// A put of a row the transaction never read, not sent yet.
    private struct PendingInsert {
        var record: StoreRecord
        var key: String
        var document: String
    }

    private struct State {
        /// Each mutation as the change log holds it (``PostgresRowCoding/changeLogEntry(before:after:)``).
        var changeLogEntries: [String] = []
        /// Rows as this transaction sees them, by key (`nil`: known to be absent).
        var known: [RecordKey: StoreRecord?] = [:]
        var pending: PendingInsert?
        var hasSavepoint = false
    }

    private let reader: PostgresReader
    private let derived: PostgresDerivedRows
    private let state = NIOLockedValueBox(State())

    init(reader: PostgresReader) {
        self.reader = reader
        derived = PostgresDerivedRows(layout: reader.layout, logger: reader.logger)
    }

    /// Whether the savepoint `body` was taken: the transaction has changed something since.
    var hasSavepoint: Bool { state.withLockedValue { $0.hasSavepoint } }

    /// Sends what the body left (a pending insert) and the change log row, after the body returned; the
    /// transaction is ready to commit.
    /// - Returns: Whether the write changed anything.
    func finish() async throws -> Bool {
        let entries = state.withLockedValue { $0.changeLogEntries }
        if let pending = takePending(), try await send(pending, changeLogAfter: entries) { return true }
        let all = state.withLockedValue { $0.changeLogEntries }
        guard !all.isEmpty else { return false }
        var statement = SQLStatement()
        PostgresMigrator(layout: reader.layout, logger: reader.logger)
            .appendChange(PostgresRowCoding.changeLogDocument(entries: all), to: &statement)
        try await reader.connection.run(statement, logger: reader.logger)
        return true
    }

    func put(_ record: StoreRecord) async throws {
        try await flushPending()
        let key = PostgresRowCoding.key(record.key)
        guard let before = state.withLockedValue({ $0.known[record.key] }) else {
            // Never read: tried as an insert, with the body's next operation or at the end.
            let document = try PostgresRowCoding.document(record)
            state.withLockedValue { $0.pending = PendingInsert(record: record, key: key, document: document) }
            return
        }
        guard before != record else { return }
        try await takeSavepoint()
        try await write(record, key: key, before: before, document: try PostgresRowCoding.document(record))
    }

    func remove(_ key: RecordKey) async throws {
        try await flushPending()
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
        try await derived.write(key: text, kind: key.kind, before: before, after: nil, afterDocument: nil, on: reader.connection)
        if case .attachment(let attachment) = before {
            // The bytes go with the row, in the same transaction.
            var blob = SQLStatement("DELETE FROM \(reader.layout.qualified(PostgresMigrator.blobsTable)) WHERE attachment_id = ")
            blob.bind(attachment.id.rawValue)
            try await reader.connection.run(blob, logger: reader.logger)
        }
        let entry = PostgresRowCoding.changeLogEntry(before: try PostgresRowCoding.document(before), after: nil)
        recordChange(StoreMutation(before: before, after: nil), key: key, entry: entry)
    }

    /// Sends a pending insert, before any other operation of the body (which may read what it wrote, or fail a
    /// rule after it).
    private func flushPending() async throws {
        guard let pending = takePending() else { return }
        try await takeSavepoint()
        _ = try await send(pending, changeLogAfter: nil)
    }

    private func takePending() -> PendingInsert? {
        state.withLockedValue { state in
            defer { state.pending = nil }
            return state.pending
        }
    }

    /// Inserts a pending row with its entries, or reads and replaces the row with its key that is there already.
    /// - Parameter entries: The change log entries before this one, when the change log row is to go in the same
    ///   statement (the body has returned); `nil` mid-body.
    /// - Returns: Whether the change log row went in with the insert.
    private func send(_ pending: PendingInsert, changeLogAfter entries: [String]?) async throws -> Bool {
        let entry = PostgresRowCoding.changeLogEntry(before: nil, after: pending.document)
        let changeLog = entries.map { PostgresRowCoding.changeLogDocument(entries: $0 + [entry]) }
        guard try await derived.insertIfAbsent(
            pending.record, key: pending.key, document: pending.document, changeLog: changeLog, on: reader.connection)
        else {
            try await replace(pending)
            return false
        }
        recordChange(StoreMutation(before: nil, after: pending.record), key: pending.record.key, entry: entry)
        return changeLog != nil
    }

    /// A pending insert met a row with its key: reads the row and replaces it.
    private func replace(_ pending: PendingInsert) async throws {
        let before = try await reader.record(pending.record.key)
        guard before != pending.record else {
            state.withLockedValue { $0.known[pending.record.key] = .some(before) }
            return
        }
        try await write(pending.record, key: pending.key, before: before, document: pending.document)
    }

    /// Writes a row over `before` and records the change.
    private func write(_ record: StoreRecord, key: String, before: StoreRecord?, document: String) async throws {
        try await derived.write(
            key: key, kind: record.kind, before: before, after: record, afterDocument: document, on: reader.connection)
        let entry = PostgresRowCoding.changeLogEntry(before: try before.map(PostgresRowCoding.document), after: document)
        recordChange(StoreMutation(before: before, after: record), key: record.key, entry: entry)
    }

    /// Takes the savepoint `body` before the first change, so a rule that fails after changes can undo them all.
    private func takeSavepoint() async throws {
        guard !hasSavepoint else { return }
        try await reader.connection.run(.savepoint, logger: reader.logger)
        state.withLockedValue { $0.hasSavepoint = true }
    }

    private func recordChange(_ mutation: StoreMutation, key: RecordKey, entry: String) {
        state.withLockedValue { state in
            state.changeLogEntries.append(entry)
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
        try await flushPending()
        if let known = state.withLockedValue({ $0.known[key] }) { return known }
        let found = try await reader.record(key)
        state.withLockedValue { $0.known[key] = .some(found) }
        return found
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row] {
        try await flushPending()
        return try await reader.rows(index, equalTo: value)
    }

    func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int {
        try await flushPending()
        return try await reader.count(index, equalTo: value, where: filter)
    }

    func records(_ keys: [RecordKey]) async throws -> [RecordKey: StoreRecord] {
        try await flushPending()
        let found = try await reader.records(keys)
        remember(keys, found: found)
        return found
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value]
    ) async throws -> [Row] {
        try await flushPending()
        return try await reader.rows(index, equalToAnyOf: values)
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        ofEach indices: [StorageIndex<Row, Value>], equalTo value: Value
    ) async throws -> [[Row]] {
        try await flushPending()
        return try await reader.rows(ofEach: indices, equalTo: value)
    }

    func counts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value], where filter: RowFilter
    ) async throws -> [Value: Int] {
        try await flushPending()
        return try await reader.counts(index, equalToAnyOf: values, where: filter)
    }

    func read(_ batch: StorageReadBatch) async throws -> StorageReadBatch.Answers {
        try await flushPending()
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
        try await flushPending()
        return try await reader.page(listing, partition, descending: descending, from: position, limit: limit, where: filter)
    }

    func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int {
        try await flushPending()
        return try await reader.count(listing, partition, where: filter)
    }

    func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord] {
        try await flushPending()
        return try await reader.searchPosts(query, from: position, limit: limit, where: filter)
    }

    func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int {
        try await flushPending()
        return try await reader.countPosts(matching: query, where: filter)
    }
}
