@_spi(Storage) import DiarySDK
import Foundation

/// A value an index files rows under, or a listing's partition, as the text column that holds it.
///
/// Every value type ``StorageSchema`` declares conforms; a declaration whose type does not is refused when the
/// store starts (``PostgresSchemaLayout/init(schema:)``), never met in the middle of a request.
protocol PostgresKeyValue {
    /// The column text: distinct values give distinct texts.
    var postgresKeyText: String { get }
}

extension String: PostgresKeyValue {
    var postgresKeyText: String { self }
}

extension UUID: PostgresKeyValue {
    // `EntityID` writes the lowercase form byte by byte; Foundation's `uuidString` goes through `snprintf` on Linux.
    var postgresKeyText: String { EntityID<UUID>(self).description }
}

extension EntityID: PostgresKeyValue {
    var postgresKeyText: String { description }
}

extension AuthorMonth: PostgresKeyValue {
    var postgresKeyText: String { "\(authorID.postgresKeyText)|\(month.year)-\(month.month)" }
}

extension AuthorTag: PostgresKeyValue {
    var postgresKeyText: String { "\(authorID.postgresKeyText)|\(tag)" }
}

extension Everything: PostgresKeyValue {
    var postgresKeyText: String { "" }
}

extension CommentTarget: PostgresKeyValue {
    var postgresKeyText: String {
        switch self {
        case .diary(let id): "diary|\(id.postgresKeyText)"
        case .post(let id): "post|\(id.postgresKeyText)"
        }
    }
}

/// The column text of an index value or partition handed to a read.
/// - Throws: ``DiaryError/Code/server`` for a type no declaration uses (the layout refused those at start).
func postgresKeyText<Value>(_ value: Value) throws -> String {
    guard let value = value as? any PostgresKeyValue else {
        throw DiaryError(.server, "the PostgreSQL store cannot key rows by \(Value.self)")
    }
    return value.postgresKeyText
}

/// One row's entry in an index table: a value, and who wrote the row when the index is filtered.
struct PostgresIndexEntry: Hashable, Sendable {
    var value: String
    var author: Authorship?
}

/// One row's entry in a listing table: where it sits, and who wrote it when the listing is filtered.
struct PostgresListingEntry: Hashable, Sendable {
    var partition: String
    var key: SortKey
    var author: Authorship?
}

/// An index declaration the store can keep: its value type has a column text.
protocol PostgresIndexDeclaration: StorageIndexDeclaration {
    var isUnique: Bool { get }
    /// Whether reads filter it by author (it declares an ``StorageIndex/author``).
    var isFiltered: Bool { get }
    /// The entries of a row (none when the row is of another table or `nil`).
    func entries(of record: StoreRecord?) -> Set<PostgresIndexEntry>
}

/// A listing declaration the store can keep: its partition type has a column text.
protocol PostgresListingDeclaration: StorageListingDeclaration {
    var isFiltered: Bool { get }
    func entries(of record: StoreRecord?) -> Set<PostgresListingEntry>
}

extension StorageIndex: PostgresIndexDeclaration where Value: PostgresKeyValue {
    var isFiltered: Bool { author != nil }

    func entries(of record: StoreRecord?) -> Set<PostgresIndexEntry> {
        guard let record, let row = table.unwrap(record) else { return [] }
        let authorship = author?(row)
        return Set(values(row).map { PostgresIndexEntry(value: $0.postgresKeyText, author: authorship) })
    }
}

extension StorageListing: PostgresListingDeclaration where Partition: PostgresKeyValue {
    var isFiltered: Bool { author != nil }

    func entries(of record: StoreRecord?) -> Set<PostgresListingEntry> {
        guard let record, let row = table.unwrap(record) else { return [] }
        let authorship = author?(row)
        return Set(entries(row).map {
            PostgresListingEntry(partition: $0.partition.postgresKeyText, key: $0.key, author: authorship)
        })
    }
}
