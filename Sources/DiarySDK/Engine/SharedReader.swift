import Foundation

/// A reader for many viewers evaluating one committed transaction in one read transaction
/// (``ChangeEvaluationBatch``): rows and counts that do not depend on the viewer are read once, for all of them,
/// and each viewer's rules are answered from them instead of asking the store again.
///
/// It keeps every row read by key (a row found, or the knowledge that there is none) and the counts it was given
/// with ``prefetch(_:)``, by index and filter. A filter that leaves nothing out counts the same rows whoever the
/// viewer is (``RowFilter/admitsEverything``), so such counts are kept under ``RowFilter/none`` and shared by every
/// viewer whose filter hides no one. Whatever it does not hold it asks the store, so every answer is the store's,
/// from the same read transaction: only fewer times.
struct SharedReader: StorageReader {
    private struct CountsKey: Hashable {
        var index: String
        var filter: RowFilter
    }

    private struct Kept {
        /// Rows by key; `nil` for a key known to have no row.
        var records: [RecordKey: StoreRecord?] = [:]
        /// Counts by index and filter, then by value; a value known to have none is kept as 0.
        var counts: [CountsKey: [AnyHashable: Int]] = [:]
    }

    private let base: any StorageReader
    private let kept = Locked(Kept())

    /// A reader that asks `base` for what it does not hold.
    init(_ base: any StorageReader) {
        self.base = base
    }

    /// What to read once for every viewer, before their rules run: rows by key, and counts with
    /// ``RowFilter/none``.
    struct Prefetch {
        fileprivate var batch = StorageReadBatch()
        fileprivate var keys: [RecordKey] = []
        fileprivate var rows: StorageReadBatch.Handle<[RecordKey: StoreRecord]>?
        fileprivate var counted: [@Sendable (StorageReadBatch.Answers) throws -> (String, [AnyHashable: Int])] = []

        /// Rows to hold (a key with no row is held as having none).
        mutating func records(_ keys: [RecordKey]) {
            self.keys += keys
        }

        /// How many rows of `index` each of `values` has, counted with ``RowFilter/none``.
        mutating func counts<Row: Sendable, Value: Hashable & Sendable>(_ index: StorageIndex<Row, Value>, _ values: [Value]) {
            guard !values.isEmpty else { return }
            let handle = batch.counts(index, equalToAnyOf: values, where: .none)
            let name = index.name
            counted.append { answers in
                let answer = try answers[handle]
                return (name, Dictionary(values.map { (AnyHashable($0), answer[$0] ?? 0) }, uniquingKeysWith: { first, _ in first }))
            }
        }
    }

    /// Reads what `prefetch` names in one read of the store, and holds it for the viewers to come.
    func prefetch(_ prefetch: Prefetch) async throws {
        var prefetch = prefetch
        if !prefetch.keys.isEmpty { prefetch.rows = prefetch.batch.records(prefetch.keys) }
        guard !prefetch.batch.isEmpty else { return }
        let answers = try await base.read(prefetch.batch)
        let found = try prefetch.rows.map { try answers[$0] } ?? [:]
        let counted = try prefetch.counted.map { try $0(answers) }
        kept.withLock { kept in
            for key in prefetch.keys { kept.records[key] = found[key] }
            for (name, values) in counted {
                kept.counts[CountsKey(index: name, filter: .none), default: [:]].merge(values) { _, new in new }
            }
        }
    }

    /// The filter counts are kept under: ``RowFilter/none`` for every filter that leaves nothing out.
    private static func shared(_ filter: RowFilter) -> RowFilter {
        filter.admitsEverything ? .none : filter
    }

    private func keep(_ found: [RecordKey: StoreRecord], asked keys: some Sequence<RecordKey>) {
        kept.withLock { kept in
            for key in keys { kept.records[key] = found[key] }
        }
    }

    // MARK: - Kept reads

    func record(_ key: RecordKey) async throws -> StoreRecord? {
        if let held = kept.withLock({ $0.records[key] }) { return held }
        let found = try await base.record(key)
        kept.withLock { $0.records[key] = found }
        return found
    }

    func records(_ keys: [RecordKey]) async throws -> [RecordKey: StoreRecord] {
        let held = kept.withLock { kept in keys.map { kept.records[$0] } }
        var found: [RecordKey: StoreRecord] = [:]
        var missing: [RecordKey] = []
        for (key, row) in zip(keys, held) {
            switch row {
            case .some(.some(let record)): found[key] = record
            case .some(.none): break
            case .none: missing.append(key)
            }
        }
        guard !missing.isEmpty else { return found }
        let read = try await base.records(missing)
        keep(read, asked: missing)
        return found.merging(read) { _, new in new }
    }

    func counts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value], where filter: RowFilter
    ) async throws -> [Value: Int] {
        let key = CountsKey(index: index.name, filter: Self.shared(filter))
        if let held = kept.withLock({ kept in kept.counts[key].flatMap { counts in Self.counts(of: values, in: counts) } }) {
            var answer: [Value: Int] = [:]
            for (value, count) in zip(values, held) where count > 0 { answer[value] = count }
            return answer
        }
        return try await base.counts(index, equalToAnyOf: values, where: filter)
    }

    /// Each value's count, or `nil` when one of them is not held.
    private static func counts(of values: [some Hashable], in held: [AnyHashable: Int]) -> [Int]? {
        var counts: [Int] = []
        counts.reserveCapacity(values.count)
        for value in values {
            guard let count = held[AnyHashable(value)] else { return nil }
            counts.append(count)
        }
        return counts
    }

    /// Answers the batch from what is held when every part is held; otherwise the store answers it whole, and
    /// the rows it found are kept.
    func read(_ batch: StorageReadBatch) async throws -> StorageReadBatch.Answers {
        if let answers = try heldAnswers(to: batch) { return answers }
        let answers = try await base.read(batch)
        for (number, part) in batch.parts.enumerated() {
            guard case .records(let keys) = part, let found = answers.records(ofPart: number) else { continue }
            keep(found, asked: keys)
        }
        return answers
    }

    private func heldAnswers(to batch: StorageReadBatch) throws -> StorageReadBatch.Answers? {
        try kept.withLock { kept -> StorageReadBatch.Answers? in
            var builder = StorageReadBatch.Answers.Builder(for: batch)
            for (number, part) in batch.parts.enumerated() {
                switch part {
                case .records(let keys):
                    var found: [StoreRecord] = []
                    for key in keys {
                        guard let row = kept.records[key] else { return nil }
                        if let row { found.append(row) }
                    }
                    try builder.answer(part: number, records: found)
                case .counts(let index, let values, let filter):
                    guard let held = kept.counts[CountsKey(index: index, filter: Self.shared(filter))] else { return nil }
                    var byPosition: [Int: Int] = [:]
                    for (position, value) in values.enumerated() {
                        guard let count = held[AnyHashable(value)] else { return nil }
                        byPosition[position] = count
                    }
                    try builder.answer(part: number, countsByPosition: byPosition)
                case .rows:
                    return nil
                }
            }
            return try builder.build()
        }
    }

    // MARK: - Asked of the store

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row] {
        try await base.rows(index, equalTo: value)
    }

    func forEachRow<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, _ body: (Row) throws -> Void
    ) async throws {
        try await base.forEachRow(index, equalTo: value, body)
    }

    func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int {
        try await base.count(index, equalTo: value, where: filter)
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value]
    ) async throws -> [Row] {
        try await base.rows(index, equalToAnyOf: values)
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        ofEach indices: [StorageIndex<Row, Value>], equalTo value: Value
    ) async throws -> [[Row]] {
        try await base.rows(ofEach: indices, equalTo: value)
    }

    func page<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool, from position: ListingPosition,
        limit: Int, where filter: RowFilter
    ) async throws -> [Row] {
        try await base.page(listing, partition, descending: descending, from: position, limit: limit, where: filter)
    }

    func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int {
        try await base.count(listing, partition, where: filter)
    }

    func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord] {
        try await base.searchPosts(query, from: position, limit: limit, where: filter)
    }

    func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int {
        try await base.countPosts(matching: query, where: filter)
    }
}
