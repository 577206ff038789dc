@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// The reads of ``StorageReader`` on one connection inside a transaction: a `REPEATABLE READ READ ONLY` one for a
/// read, the `SERIALIZABLE` one of a write (whose own changes it sees).
///
/// Each requirement is one statement over the table of a declared index or listing (``PostgresSchemaLayout``).
final class PostgresReader: StorageReader {
    let connection: PostgresConnection
    let layout: PostgresSchemaLayout
    let logger: Logger

    init(connection: PostgresConnection, layout: PostgresSchemaLayout, logger: Logger) {
        self.connection = connection
        self.layout = layout
        self.logger = logger
    }

    func record(_ key: RecordKey) async throws -> StoreRecord? {
        var statement = SQLStatement("SELECT doc::text FROM \(layout.recordTable(key.kind)) WHERE key = ")
        statement.bind(PostgresRowCoding.key(key))
        return try await documents(statement, kind: key.kind).first
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value
    ) async throws -> [Row] {
        let table = try layout.index(named: index.name)
        var statement = SQLStatement(
            "SELECT r.doc::text FROM \(layout.qualified(table.table)) i JOIN \(layout.recordTable(index.kind)) r "
                + "ON r.key = i.key WHERE i.value = ")
        statement.bind(try postgresKeyText(value))
        return try await rows(of: index.table, statement)
    }

    func count<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalTo value: Value, where filter: RowFilter
    ) async throws -> Int {
        let table = try layout.index(named: index.name)
        var statement = SQLStatement("SELECT count(*) FROM \(layout.qualified(table.table)) WHERE value = ")
        statement.bind(try postgresKeyText(value))
        if table.declaration.isFiltered { filter.appendSQL(to: &statement, alias: nil) }
        return try await count(statement)
    }

    func page<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, descending: Bool, from position: ListingPosition,
        limit: Int, where filter: RowFilter
    ) async throws -> [Row] {
        let table = try layout.listing(named: listing.name)
        guard limit > 0 else { return [] }
        var statement = SQLStatement(
            "SELECT r.doc::text FROM \(layout.qualified(table.table)) l JOIN \(layout.recordTable(listing.kind)) r "
                + "ON r.key = l.key WHERE l.partition = ")
        statement.bind(try postgresKeyText(partition))
        if table.declaration.isFiltered { filter.appendSQL(to: &statement, alias: "l") }
        statement.appendPosition(position, descending: descending, limit: limit, alias: "l")
        return try await rows(of: listing.table, statement)
    }

    func count<Row: Sendable, Partition: Hashable & Sendable>(
        _ listing: StorageListing<Row, Partition>, _ partition: Partition, where filter: RowFilter
    ) async throws -> Int {
        let table = try layout.listing(named: listing.name)
        var statement = SQLStatement("SELECT count(*) FROM \(layout.qualified(table.table)) WHERE partition = ")
        statement.bind(try postgresKeyText(partition))
        if table.declaration.isFiltered { filter.appendSQL(to: &statement, alias: nil) }
        return try await count(statement)
    }

    // MARK: - Helpers

    /// The rows a statement selecting `doc::text` returns.
    func documents(_ statement: SQLStatement, kind: RecordKind) async throws -> [StoreRecord] {
        SQLStatementLog.current?.append(statement)
        var records: [StoreRecord] = []
        for try await document in try await connection.query(statement.query, logger: logger).decode(String.self) {
            records.append(try PostgresRowCoding.record(from: document, kind: kind))
        }
        return records
    }

    /// The rows of a table a statement selecting `doc::text` returns.
    func rows<Row>(of table: StorageTable<Row>, _ statement: SQLStatement) async throws -> [Row] {
        try await documents(statement, kind: table.kind).map { record in
            guard let row = table.unwrap(record) else {
                throw DiaryError(.storageCorrupted, "the \(table.kind.rawValue) table holds a row of another kind")
            }
            return row
        }
    }

    /// The number a `SELECT count(*)` statement returns.
    func count(_ statement: SQLStatement) async throws -> Int {
        SQLStatementLog.current?.append(statement)
        for try await count in try await connection.query(statement.query, logger: logger).decode(Int64.self) {
            return Int(count)
        }
        return 0
    }
}

extension SQLStatement {
    /// Appends where a page starts, its order and its size: keyset (`.after`) or `OFFSET` paging over the
    /// listing's `(sort_micros, sort_id)`.
    mutating func appendPosition(_ position: ListingPosition, descending: Bool, limit: Int, alias: String) {
        var offset = 0
        switch position {
        case .start: break
        case .after(let key):
            append(" AND (\(alias).sort_micros, \(alias).sort_id) \(descending ? "<" : ">") (")
            bind(key.micros)
            append(", ")
            bind(key.id)
            append(")")
        case .offset(let count): offset = max(0, count)
        }
        let direction = descending ? "DESC" : "ASC"
        append(" ORDER BY \(alias).sort_micros \(direction), \(alias).sort_id \(direction) LIMIT ")
        bind(Int64(limit))
        if offset > 0 {
            append(" OFFSET ")
            bind(Int64(offset))
        }
    }
}
