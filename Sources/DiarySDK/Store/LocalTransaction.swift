import Foundation

/// A write in progress on a local store, through the storage contract: what a local store's
/// ``DiaryStorage/write(_:_:)`` hands its body.
///
/// It works on its own copy of the database, so readers holding the committed state see none of its changes, and
/// dropping it undoes everything. When the body returns, the store takes ``finish()`` (the mutations in order, the
/// database and the attachment files to delete once durable), makes them durable, and publishes the database as the
/// committed state.
///
/// A change goes into the database's indices and listings only when a read of the transaction needs them: until
/// then a row read by key comes from the changes themselves. So a write whose body reads nothing after its changes
/// (most writes) hands ``Outcome`` its changes unapplied, and the file store files them in the indices while its
/// journal flush is in flight (``Outcome/applyRest()``), instead of before it.
package final class LocalTransaction: StorageTransaction {
    private struct State {
        /// The database with the first `applied` mutations.
        var database: LocalDatabase
        var mutations: [StoreMutation] = []
        var applied = 0
        /// The row under each key that a mutation past `applied` changed (`.some(nil)`: removed).
        var latest: [RecordKey: StoreRecord?] = [:]
        var removedBlobs: [Attachment.ID] = []

        func record(for key: RecordKey) -> StoreRecord? {
            if let changed = latest[key] { return changed }
            return database.record(for: key)
        }

        /// Files the mutations not applied yet, for a read that needs the indices or listings.
        mutating func applyPending() {
            guard applied < mutations.count else { return }
            for mutation in mutations[applied...] { database.apply(mutation) }
            applied = mutations.count
            latest = [:]
        }
    }

    /// What a finished transaction hands its store.
    package struct Outcome: Sendable {
        /// The database the transaction started from, with the mutations its reads needed applied (all of them
        /// after ``applyRest()``).
        package private(set) var database: LocalDatabase
        /// Every change, in order.
        package let mutations: [StoreMutation]
        /// How many of ``mutations`` ``database`` holds.
        package private(set) var applied: Int
        /// Attachment files to delete once the transaction is durable.
        package let removedBlobs: [Attachment.ID]

        /// Whether ``database`` holds every mutation.
        package var isApplied: Bool { applied == mutations.count }

        /// Applies the mutations ``database`` does not hold yet: O(indices and listings of the rows they change).
        package mutating func applyRest() {
            guard applied < mutations.count else { return }
            for mutation in mutations[applied...] { database.apply(mutation) }
            applied = mutations.count
        }
    }

    private let state: Locked<State>

    /// A transaction on a copy of `database` (the committed state).
    package init(database: LocalDatabase) {
        state = Locked(State(database: database))
    }

    /// The database, including this transaction's changes so far.
    package var database: LocalDatabase {
        state.withLock { state in
            state.applyPending()
            return state.database
        }
    }

    /// The changes so far, in order.
    package var mutations: [StoreMutation] { state.withLock { $0.mutations } }

    /// Attachment files to delete once the transaction is durable.
    package var removedBlobs: [Attachment.ID] { state.withLock { $0.removedBlobs } }

    /// Hands over the mutations, the database and the attachment files to delete, leaving the transaction empty, so
    /// the store's copy of the database is the only one and applying the rest copies nothing more.
    package func finish() -> Outcome {
        state.withLock { state in
            var taken = State(database: LocalDatabase.placeholder)
            swap(&taken, &state)
            return Outcome(
                database: taken.database, mutations: taken.mutations, applied: taken.applied,
                removedBlobs: taken.removedBlobs)
        }
    }

    /// Inserts a row, or replaces the row with the same key; a put that changes nothing records no mutation.
    private func store(_ record: StoreRecord) {
        state.withLock { state in
            let key = record.key
            let before = state.record(for: key)
            guard before != record else { return }
            state.mutations.append(StoreMutation(before: before, after: record))
            state.latest[key] = .some(record)
        }
    }

    /// Removes the row with a key, if there is one.
    private func delete(_ key: RecordKey) {
        state.withLock { state in
            guard let before = state.record(for: key) else { return }
            state.mutations.append(StoreMutation(before: before, after: nil))
            state.latest[key] = .some(nil)
            if case .attachment(let attachment) = before { state.removedBlobs.append(attachment.id) }
        }
    }

    /// Runs a read of the indices, listings or text index on the database with every change so far.
    private func reading<T>(_ read: (LocalDatabase) throws -> T) throws -> T {
        try state.withLock { state in
            state.applyPending()
            return try read(state.database)
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
        state.withLock { $0.record(for: key) }
    }

    package func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row] {
        try reading { try $0.rows(index, equalTo: value) }
    }

    package func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int {
        try reading { try $0.count(index, equalTo: value, where: filter) }
    }

    package func page<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool,
        from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [Row] {
        try reading {
            try $0.page(listing, partition, descending: descending, from: position, limit: limit, where: filter)
        }
    }

    package func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int {
        try reading { try $0.count(listing, partition, where: filter) }
    }

    package func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord] {
        try reading { try $0.searchPosts(query, from: position, limit: limit, where: filter) }
    }

    package func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int {
        try reading { try $0.countPosts(matching: query, where: filter) }
    }
}
