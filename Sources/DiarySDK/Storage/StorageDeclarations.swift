import Foundation

/// The kind of a stored row: its table, and the name its records carry in journals and snapshots.
@_spi(Storage)
public enum RecordKind: String, Hashable, Sendable, CaseIterable, Codable, CodingKey {
    case user, credential, session, device, diary, book, membership, comment, post, like, follow, block, report
    case notification, blog, attachment, anonymousBlock
    /// The id of a deleted entry, post or comment (``RetiredIDRecord``).
    case retiredID
    /// A write made on a device and not yet sent to the server (``OutboxRecord``): what an offline backend's
    /// outbox holds, written in the same transaction as the write itself.
    case outbox
}

/// A table: the rows of one ``RecordKind``, and how a row is wrapped in and taken out of a ``StoreRecord``.
@_spi(Storage)
public struct StorageTable<Row: Sendable>: Sendable {
    /// The kind of row.
    public let kind: RecordKind
    /// The record holding a row.
    public let wrap: @Sendable (Row) -> StoreRecord
    /// The row in a record of this table's kind.
    public let unwrap: @Sendable (StoreRecord) -> Row?

    /// Declares a table.
    public init(
        _ kind: RecordKind, wrap: @escaping @Sendable (Row) -> StoreRecord,
        unwrap: @escaping @Sendable (StoreRecord) -> Row?
    ) {
        self.kind = kind
        self.wrap = wrap
        self.unwrap = unwrap
    }
}

/// An index over a table: each row is found under every value `values` gives it (none, one or several).
///
/// A SQL store answers ``StorageReader/rows(_:equalTo:)`` on it with `SELECT … WHERE column = $1` over an index on
/// that column (or a join table for a multi-valued index such as tags); the local stores keep it as a hash map.
@_spi(Storage)
public struct StorageIndex<Row: Sendable, Value: Hashable & Sendable>: Sendable {
    /// A stable name, `table.column` (`"posts.authorID"`): what a SQL store switches on.
    public let name: String
    /// The table.
    public let table: StorageTable<Row>
    /// The values a row is found under.
    public let values: @Sendable (Row) -> [Value]
    /// Whether a value names at most one row.
    public let isUnique: Bool
    /// Who wrote a row, for ``RowFilter``; `nil` when the index is never filtered.
    public let author: (@Sendable (Row) -> Authorship)?

    /// Declares an index.
    public init(
        _ name: String, on table: StorageTable<Row>, unique: Bool = false,
        author: (@Sendable (Row) -> Authorship)? = nil, values: @escaping @Sendable (Row) -> [Value]
    ) {
        self.name = name
        self.table = table
        self.values = values
        self.isUnique = unique
        self.author = author
    }
}

/// A few fields of a table's rows, read without the rest of each row: for a read that keeps those fields of many
/// rows (a month calendar keeps the day, the mood and what decides who may see each entry).
///
/// A SQL store answers ``StorageReader/forEachRow(_:equalTo:reading:_:)`` with it by selecting only those columns,
/// from a covering index where it has one; the stores in memory read them straight from each stored record, without
/// copying the row's text and arrays (at 100,000 entries, touching those was most of a calendar's cost).
@_spi(Storage)
public struct StorageProjection<Row: Sendable, Fields: Sendable>: Sendable {
    /// A stable name (`"diaries.calendar"`): what a SQL store switches on.
    public let name: String
    /// The table.
    public let table: StorageTable<Row>
    /// The fields of a record of the table's kind; `nil` for a record of another kind. Written as a pattern match
    /// that reads the fields from the matched row, so the row itself is never copied out of the record.
    public let fields: @Sendable (StoreRecord) -> Fields?

    /// Declares a projection.
    public init(_ name: String, on table: StorageTable<Row>, fields: @escaping @Sendable (StoreRecord) -> Fields?) {
        self.name = name
        self.table = table
        self.fields = fields
    }

    /// The fields of a row.
    public func fields(of row: Row) -> Fields? {
        fields(table.wrap(row))
    }
}

/// An ordered listing over a table: each row sits in one or more partitions (an author's entries, the entries with
/// a tag) at a ``SortKey``, and is read a page at a time.
///
/// A SQL store answers ``StorageReader/page(_:_:descending:from:limit:where:)`` with
/// `… WHERE partition = $1 AND (sort, id) < ($2, $3) ORDER BY sort DESC, id DESC LIMIT $4` over a composite index.
@_spi(Storage)
public struct StorageListing<Row: Sendable, Partition: Hashable & Sendable>: Sendable {
    /// A stable name (`"posts.feed"`).
    public let name: String
    /// The table.
    public let table: StorageTable<Row>
    /// Where a row sits: each partition it is listed in, with its key there.
    public let entries: @Sendable (Row) -> [ListingEntry<Partition>]
    /// Who wrote a row, for ``RowFilter``; `nil` when the listing is never filtered.
    public let author: (@Sendable (Row) -> Authorship)?
    /// The key of the row at an entry, for stores that keep a listing as sort keys alone.
    public let rowKey: @Sendable (Partition, SortKey) -> RecordKey

    /// Declares a listing.
    public init(
        _ name: String, on table: StorageTable<Row>, author: (@Sendable (Row) -> Authorship)? = nil,
        rowKey: @escaping @Sendable (Partition, SortKey) -> RecordKey,
        entries: @escaping @Sendable (Row) -> [ListingEntry<Partition>]
    ) {
        self.name = name
        self.table = table
        self.entries = entries
        self.author = author
        self.rowKey = rowKey
    }
}

/// Where a row sits in a listing.
@_spi(Storage)
public struct ListingEntry<Partition: Hashable & Sendable>: Hashable, Sendable {
    /// The partition.
    public var partition: Partition
    /// The row's position in it.
    public var key: SortKey

    /// An entry.
    public init(_ partition: Partition, _ key: SortKey) {
        self.partition = partition
        self.key = key
    }
}

/// The partition of a listing that has only one (every post in the community feed).
@_spi(Storage)
public struct Everything: Hashable, Sendable {
    /// The one partition.
    public init() {}
}

/// A user's rows in one month.
@_spi(Storage)
public struct AuthorMonth: Hashable, Sendable {
    /// The user.
    public var authorID: User.ID
    /// The month.
    public var month: YearMonth

    /// Creates a key.
    public init(authorID: User.ID, month: YearMonth) {
        self.authorID = authorID
        self.month = month
    }
}

/// A user's rows with one tag (lowercased).
@_spi(Storage)
public struct AuthorTag: Hashable, Sendable {
    /// The user.
    public var authorID: User.ID
    /// The tag, lowercased.
    public var tag: String

    /// Creates a key.
    public init(authorID: User.ID, tag: String) {
        self.authorID = authorID
        self.tag = tag
    }
}
