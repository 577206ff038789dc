import Foundation

/// A write in progress on a local store, through the storage contract: what a local store's
/// ``DiaryStorage/write(_:_:)`` hands its body.
///
/// It works on its own copy of the database, so readers holding the committed state see none of its changes, and
/// dropping it undoes everything. When the body returns, the store takes ``finish()`` (the new database, the
/// mutations in order and the attachment files to delete once durable), makes them durable, and publishes the
/// database as the committed state.
package final class LocalTransaction: StorageTransaction {
    private struct State {
        var database: LocalDatabase
        var mutations: [StoreMutation] = []
        var removedBlobs: [Attachment.ID] = []
    }

    private let state: Locked<State>

    /// A transaction on a copy of `database` (the committed state).
    package init(database: LocalDatabase) {
        state = Locked(State(database: database))
    }

    /// The database, including this transaction's changes so far.
    package var database: LocalDatabase { state.withLock { $0.database } }

    /// The changes so far, in order.
    package var mutations: [StoreMutation] { state.withLock { $0.mutations } }

    /// Attachment files to delete once the transaction is durable.
    package var removedBlobs: [Attachment.ID] { state.withLock { $0.removedBlobs } }

    /// Hands over the database, the mutations and the attachment files to delete, leaving the transaction empty, so
    /// the store's copy of the database is the only one and its next write copies nothing.
    package func finish() -> (database: LocalDatabase, mutations: [StoreMutation], removedBlobs: [Attachment.ID]) {
        state.withLock { state in
            var taken = State(database: LocalDatabase.placeholder)
            swap(&taken, &state)
            return (taken.database, taken.mutations, taken.removedBlobs)
        }
    }

    /// Inserts a row, or replaces the row with the same key; a put that changes nothing records no mutation.
    private func store(_ record: StoreRecord) {
        state.withLock { state in
            let before = state.database.put(record)
            if before != record { state.mutations.append(StoreMutation(before: before, after: record)) }
        }
    }

    /// Removes the row with a key, if there is one.
    private func delete(_ key: RecordKey) {
        state.withLock { state in
            guard let before = state.database.remove(key) else { return }
            state.mutations.append(StoreMutation(before: before, after: nil))
            if case .attachment(let attachment) = before { state.removedBlobs.append(attachment.id) }
        }
    }

    // MARK: - StorageTransaction

    package func put(_ record: StoreRecord) async throws {
        store(record)
    }

    package func remove(_ key: RecordKey) async throws {
        delete(key)
    }

    package func record(_ key: RecordKey) async throws -> StoreRecord? {
        state.withLock { $0.database.record(for: key) }
    }

    package func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row] {
        try state.withLock { try $0.database.rows(index, equalTo: value) }
    }

    package func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int {
        try state.withLock { try $0.database.count(index, equalTo: value, where: filter) }
    }

    package func page<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool,
        from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [Row] {
        try state.withLock {
            try $0.database.page(listing, partition, descending: descending, from: position, limit: limit, where: filter)
        }
    }

    package func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int {
        try state.withLock { try $0.database.count(listing, partition, where: filter) }
    }

    package func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord] {
        try state.withLock { try $0.database.searchPosts(query, from: position, limit: limit, where: filter) }
    }

    package func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int {
        try state.withLock { try $0.database.countPosts(matching: query, where: filter) }
    }
}
