import Foundation

/// The storage a ``DiaryEngine`` runs on: the contract a storage engine implements so that every rule of the SDK
/// runs on it unchanged.
///
/// The engine never holds the dataset. It asks for what a request needs, inside a read or a write: a row by its key
/// (``StorageReader/record(_:)``), the rows of an index with a value (``StorageReader/rows(_:equalTo:)``), a page of a
/// listing in order (``StorageReader/page(_:_:from:limit:where:)``), counts, and a text search. Every index and
/// listing is declared once, in ``StorageSchema``; a SQL store answers each with one indexed query, and the stores in
/// this package derive their in-memory indices from the same declarations. docs/CustomStorage.md shows how to
/// implement the contract and run the conformance suite on it.
///
/// What a store guarantees:
/// - A read sees one committed state, and never waits for a write's disk flush or for another read.
/// - Writes are serialised: a write's body sees every write committed before it, and its own changes.
/// - A write is atomic and durable when ``write(_:_:)`` returns; if the body throws, nothing it did is kept.
/// - ``committedChanges(after:)`` delivers each committed write's mutations with its position in the change log,
///   once, in an order consistent with commits: a write that read or wrote what another wrote arrives after it (the
///   local stores deliver in commit order); a stream can start after a position the log still holds.
///
/// The contract is fenced behind `@_spi(Storage)`: apps never see it. Import it with
/// `@_spi(Storage) import DiarySDK`.
@_spi(Storage)
public protocol DiaryStorage: Sendable {
    /// Runs a read against the last committed state.
    /// - Parameters:
    ///   - operation: The repository operation (`"posts.feed"`), for fault injection and diagnostics.
    ///   - body: The read. It may run more than once only if the store says so in its documentation.
    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageReader) async throws -> Result
    ) async throws -> Result

    /// Runs a transaction: its mutations are all committed and durable when this returns, or none are.
    /// - Parameters:
    ///   - operation: The repository operation, for fault injection and diagnostics.
    ///   - body: The transaction. Reads inside it see its own changes.
    func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageTransaction) async throws -> Result
    ) async throws -> Result

    /// Stores an attachment's bytes before the transaction that writes its row.
    func saveBlob(_ data: Data, for id: Attachment.ID) async throws

    /// An attachment's bytes.
    /// - Throws: ``DiaryError/Code/notFound`` when there are none.
    func blob(for id: Attachment.ID) async throws -> Data

    /// The change log: every committed transaction's mutations with its position, after `position` (from now when
    /// `nil`), once each; a write that read or wrote what another wrote after it, independent writes in any order
    /// (the local stores: commit order). Positions grow in the order delivered.
    ///
    /// The first event is ``ChangeLogEvent/opened(_:)``, or ``ChangeLogEvent/trimmed(_:)`` when the store cannot
    /// start after `position` (its log was trimmed past it, or it is not a position of this store). How long the log
    /// reaches back is the store's to say and document. The stream ends when the store closes; a stream that cannot
    /// keep every transaction it owes its reader ends instead of skipping one, and the reader opens another after the
    /// last position it received.
    func committedChanges(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent>
}

/// Where a page of a listing starts.
@_spi(Storage)
public enum ListingPosition: Hashable, Sendable {
    /// The listing's first row.
    case start
    /// The first row past a key, in the listing's direction (keyset paging: `WHERE (sort, id) < ($1, $2)` when
    /// descending).
    case after(SortKey)
    /// The row after skipping this many rows that pass the filter (`OFFSET`).
    case offset(Int)
}

/// What the engine reads inside a ``DiaryStorage`` read or write.
///
/// Every method answers from one committed state (plus the transaction's own changes inside a write). Indices and
/// listings are the ones declared in ``StorageSchema``; a store may assume it is never asked for another.
@_spi(Storage)
public protocol StorageReader: Sendable {
    /// The row with a key, if any.
    func record(_ key: RecordKey) async throws -> StoreRecord?

    /// The rows whose index value equals `value`, in no particular order.
    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row]

    /// Calls `body` with each row whose index value equals `value`, in no particular order, without collecting them:
    /// for a read that keeps a few fields of many rows (a month calendar reads a day and a mood of each entry).
    ///
    /// A store in memory hands over the rows it holds without copying them into an array; a SQL store can select
    /// only what it was asked for. The default calls `body` with each row of ``rows(_:equalTo:)``.
    func forEachRow<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, _ body: (Row) throws -> Void
    ) async throws

    /// Calls `body` with a projection's fields of each row whose index value equals `value`, in no particular order:
    /// for a read that keeps the same few fields of many rows (a month calendar, a streak).
    ///
    /// A SQL store selects only the projection's columns (``StorageProjection/name`` says which), from a covering
    /// index; the stores in memory read the fields from each stored record without copying the row. The default calls
    /// `body` with the fields of each row of ``forEachRow(_:equalTo:_:)``.
    func forEachRow<Row: Sendable, Value: Hashable & Sendable, Fields: Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, reading projection: StorageProjection<Row, Fields>,
        _ body: (Fields) throws -> Void
    ) async throws

    /// How many rows with the index value `value` pass `filter` (which names users the index's ``StorageIndex/author``
    /// wrote).
    func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int

    /// The rows with any of these keys, by key; a key with no row is absent.
    ///
    /// What a page shows beside its rows (their authors, whether the viewer liked each post) is read with one call
    /// for the whole page, not one per row. A SQL store answers it with `WHERE key = ANY($1)`; the default asks
    /// ``record(_:)`` for each key, which is right for a store in memory.
    func records(_ keys: [RecordKey]) async throws -> [RecordKey: StoreRecord]

    /// The rows whose index value is any of `values`, in no particular order, each once.
    ///
    /// The default asks ``rows(_:equalTo:)`` for each value.
    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value]
    ) async throws -> [Row]

    /// The rows of several indices with one value, over one table or several of the same row type: for each index,
    /// in order, what ``rows(_:equalTo:)`` answers (a viewer's blocks by them, of them and of anonymous authors, in one
    /// call).
    ///
    /// The default asks ``rows(_:equalTo:)`` for each index.
    func rows<Row: Sendable, Value: Hashable & Sendable>(
        ofEach indices: [StorageIndex<Row, Value>], equalTo value: Value
    ) async throws -> [[Row]]

    /// For each of `values`, how many rows with it pass `filter`, as ``count(_:equalTo:where:)`` counts them; a
    /// value may be absent when it has none.
    ///
    /// A SQL store answers it with one `… WHERE value = ANY($1) GROUP BY value`; the default asks
    /// ``count(_:equalTo:where:)`` for each value.
    func counts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value], where filter: RowFilter
    ) async throws -> [Value: Int]

    /// Several of the reads above at once (``StorageReadBatch``): what a store that pays a round trip per read
    /// answers in one. Each part's answer is exactly what the requirement of its shape would answer.
    ///
    /// The default answers the parts one after another.
    func read(_ batch: StorageReadBatch) async throws -> StorageReadBatch.Answers

    /// Up to `limit` rows of a listing's partition that pass `filter`, in the listing's order (newest first when
    /// `descending`), starting at `position`.
    func page<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool, from position: ListingPosition,
        limit: Int, where filter: RowFilter
    ) async throws -> [Row]

    /// How many rows of a listing's partition pass `filter`.
    func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int

    /// Up to `limit` posts, newest first, whose searchable text (``SearchText/searchable(_:)``) contains every word of
    /// `query` and that carry every tag of it, passing `filter`.
    func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord]

    /// How many posts match `query` and pass `filter`.
    func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int
}

@_spi(Storage)
extension StorageReader {
    /// Asks ``record(_:)`` for each key.
    public func records(_ keys: [RecordKey]) async throws -> [RecordKey: StoreRecord] {
        var found: [RecordKey: StoreRecord] = [:]
        for key in Set(keys) {
            if let record = try await record(key) { found[key] = record }
        }
        return found
    }

    /// Calls `body` with each row of ``rows(_:equalTo:)``.
    public func forEachRow<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, _ body: (Row) throws -> Void
    ) async throws {
        for row in try await rows(index, equalTo: value) { try body(row) }
    }

    /// Calls `body` with the fields of each row of ``forEachRow(_:equalTo:_:)``.
    public func forEachRow<Row: Sendable, Value: Hashable & Sendable, Fields: Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, reading projection: StorageProjection<Row, Fields>,
        _ body: (Fields) throws -> Void
    ) async throws {
        try await forEachRow(index, equalTo: value) { row in
            if let fields = projection.fields(of: row) { try body(fields) }
        }
    }

    /// Asks ``rows(_:equalTo:)`` for each value, keeping a row filed under several of them once.
    public func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value]
    ) async throws -> [Row] {
        // One value (a viewer's blocks, read on every request) needs no set: a row is filed under a value once.
        if values.count == 1 { return try await self.rows(index, equalTo: values[0]) }
        var seen: Set<RecordKey> = []
        var rows: [Row] = []
        for value in Set(values) {
            for row in try await self.rows(index, equalTo: value) where seen.insert(index.table.wrap(row).key).inserted {
                rows.append(row)
            }
        }
        return rows
    }

    /// Asks ``rows(_:equalTo:)`` for each index.
    public func rows<Row: Sendable, Value: Hashable & Sendable>(
        ofEach indices: [StorageIndex<Row, Value>], equalTo value: Value
    ) async throws -> [[Row]] {
        var rows: [[Row]] = []
        for index in indices { rows.append(try await self.rows(index, equalTo: value)) }
        return rows
    }

    /// Answers each part with the requirement of its shape, one after another.
    public func read(_ batch: StorageReadBatch) async throws -> StorageReadBatch.Answers {
        try await batch.readOneByOne(on: self)
    }

    /// Asks ``count(_:equalTo:where:)`` for each value.
    public func counts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value], where filter: RowFilter
    ) async throws -> [Value: Int] {
        if values.count == 1 { return [values[0]: try await count(index, equalTo: values[0], where: filter)] }
        var counts: [Value: Int] = [:]
        for value in Set(values) { counts[value] = try await count(index, equalTo: value, where: filter) }
        return counts
    }
}

/// What the engine does inside a ``DiaryStorage`` write: it reads (seeing its own changes) and puts or removes rows.
@_spi(Storage)
public protocol StorageTransaction: StorageReader {
    /// Inserts a row, or replaces the row with the same key.
    func put(_ record: StoreRecord) async throws

    /// Removes the row with a key, if there is one.
    func remove(_ key: RecordKey) async throws
}

/// A text search over posts, in the folded form ``SearchText`` produces.
@_spi(Storage)
public struct PostTextQuery: Hashable, Sendable {
    /// Folded words, each of which the post's searchable text must contain.
    public var words: [String]
    /// Lowercased tags, each of which the post must carry.
    public var tags: [String]

    /// Creates a query.
    public init(words: [String], tags: [String]) {
        self.words = words
        self.tags = tags
    }

    /// Whether a post matches: the one definition every store's search must agree with.
    public func matches(_ post: PostRecord) -> Bool {
        if !tags.isEmpty {
            let postTags = Set(post.tags.map { $0.lowercased() })
            guard tags.allSatisfy(postTags.contains) else { return false }
        }
        guard !words.isEmpty else { return true }
        let haystack = SearchText.searchable(post)
        return words.allSatisfy(haystack.contains)
    }
}

@_spi(Storage)
extension PostTextQuery {
    /// The folded text a post is found by (``SearchText``): what a store that keeps it in a column, to index it,
    /// stores for each post; ``matches(_:)`` looks for the query's words in it.
    /// - Parameter post: The post.
    /// - Returns: The post's title, readable body and tags, folded.
    public static func searchableText(of post: PostRecord) -> String {
        SearchText.searchable(post)
    }

    /// The folded words of what someone typed, as the engine puts them in a query.
    /// - Parameter text: The typed text.
    /// - Returns: Its words, folded.
    public static func words(of text: String) -> [String] {
        SearchText.words(of: text)
    }
}
