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

    // The batched reads are batches of one part (``read(_:)``): one statement each.

    func records(_ keys: [RecordKey]) async throws -> [RecordKey: StoreRecord] {
        var batch = StorageReadBatch()
        let found = batch.records(keys)
        return try await read(batch)[found]
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value]
    ) async throws -> [Row] {
        var batch = StorageReadBatch()
        let rows = batch.rows(index, equalToAnyOf: values)
        return try await read(batch)[rows]
    }

    func rows<Row: Sendable, Value: Hashable & Sendable>(
        ofEach indices: [StorageIndex<Row, Value>], equalTo value: Value
    ) async throws -> [[Row]] {
        var batch = StorageReadBatch()
        let parts = indices.map { batch.rows($0, equalToAnyOf: [value]) }
        let answers = try await read(batch)
        return try parts.map { try answers[$0] }
    }

    func counts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, equalToAnyOf values: [Value], where filter: RowFilter
    ) async throws -> [Value: Int] {
        var batch = StorageReadBatch()
        let counts = batch.counts(index, equalToAnyOf: values, where: filter)
        return try await read(batch)[counts]
    }

    func read(_ batch: StorageReadBatch) async throws -> StorageReadBatch.Answers {
        // One `UNION ALL` of every part, each selecting `(part, sub, text, count)`: a row's `doc::text` (`sub`
        // numbering the record tables of a `records` part), or a counted value and its count.
        var statement = SQLStatement()
        var selects = 0
        func startSelect() {
            statement.append(selects == 0 ? "" : " UNION ALL ")
            selects += 1
        }
        var recordKinds: [Int: [RecordKind]] = [:]
        var countedPositions: [Int: [String: [Int]]] = [:]
        for (number, part) in batch.parts.enumerated() {
            switch part {
            case .records(let keys):
                let byKind = Dictionary(grouping: Set(keys), by: \.kind).sorted { $0.key.rawValue < $1.key.rawValue }
                recordKinds[number] = byKind.map(\.key)
                for (sub, (kind, keys)) in byKind.enumerated() {
                    startSelect()
                    statement.append("SELECT \(number), \(sub), doc::text, NULL::bigint FROM \(layout.recordTable(kind)) WHERE key = ANY(")
                    statement.bind(keys.map(PostgresRowCoding.key))
                    statement.append("::text[])")
                }
            case .rows(let name, let kind, let values):
                guard !values.isEmpty else { continue }
                let table = try layout.index(named: name)
                startSelect()
                statement.append(
                    "SELECT \(number), 0, r.doc::text, NULL::bigint FROM \(layout.recordTable(kind)) r WHERE r.key IN "
                        + "(SELECT i.key FROM \(layout.qualified(table.table)) i WHERE i.value = ANY(")
                statement.bind(Array(Set(try values.map(postgresKeyText))))
                statement.append("::text[]))")
            case .counts(let name, let values, let filter):
                guard !values.isEmpty else { continue }
                let table = try layout.index(named: name)
                var positions: [String: [Int]] = [:]
                for (position, value) in values.enumerated() { positions[try postgresKeyText(value), default: []].append(position) }
                countedPositions[number] = positions
                startSelect()
                statement.append("SELECT \(number), 0, value, count(*) FROM \(layout.qualified(table.table)) WHERE value = ANY(")
                statement.bind(Array(positions.keys))
                statement.append("::text[])")
                if table.declaration.isFiltered { filter.appendSQL(to: &statement, alias: nil) }
                statement.append(" GROUP BY value")
            }
        }
        // A pending document check (a request's session) rides along as part -1 (``PostgresDocumentCheck``).
        let check = selects > 0 ? PostgresDocumentCheck.pending.flatMap { $0.isSettled ? nil : $0 } : nil
        if let check {
            startSelect()
            check.appendBatchSelect(to: &statement)
        }
        var checked: PostgresDocumentCheck.Found = nil
        var records = [[StoreRecord]](repeating: [], count: batch.parts.count)
        var counts = [[Int: Int]](repeating: [:], count: batch.parts.count)
        if selects > 0 {
            SQLStatementLog.current?.append(statement)
            let rows = try await connection.rows(statement, logger: logger, decode: { try $0.decode((Int, Int, String, Int64?).self) })
            for try await (part, sub, text, count) in rows {
                if part == -1, check != nil {
                    checked = (text, count == 1)
                    continue
                }
                guard batch.parts.indices.contains(part) else { throw DiaryError(.server, "a batched read answered a part it did not ask") }
                switch batch.parts[part] {
                case .records:
                    guard let kinds = recordKinds[part], kinds.indices.contains(sub) else {
                        throw DiaryError(.server, "a batched read answered a table it did not ask")
                    }
                    records[part].append(try PostgresRowCoding.record(from: text, kind: kinds[sub]))
                case .rows(_, let kind, _):
                    records[part].append(try PostgresRowCoding.record(from: text, kind: kind))
                case .counts:
                    guard let positions = countedPositions[part]?[text], let count else {
                        throw DiaryError(.server, "a batched count answered for a value it did not ask")
                    }
                    for position in positions { counts[part][position] = Int(count) }
                }
            }
        }
        try check?.record(checked)
        var answers = StorageReadBatch.Answers.Builder(for: batch)
        for (number, part) in batch.parts.enumerated() {
            switch part {
            case .records, .rows: try answers.answer(part: number, records: records[number])
            case .counts: try answers.answer(part: number, countsByPosition: counts[number])
            }
        }
        return try answers.build()
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
        for try await document in try await connection.rows(statement, logger: logger, decode: { try $0.decode(String.self) }) {
            records.append(try PostgresRowCoding.record(from: document, kind: kind))
        }
        return records
    }

    /// The rows of a table a statement selecting `doc::text` returns.
    func rows<Row>(of table: StorageTable<Row>, _ statement: SQLStatement) async throws -> [Row] {
        try await documents(statement, kind: table.kind).map { try Self.row(of: table, $0) }
    }

    /// The row of a table in a record read from it.
    /// - Throws: ``DiaryError/Code/storageCorrupted`` when the table holds a row of another kind.
    static func row<Row>(of table: StorageTable<Row>, _ record: StoreRecord) throws -> Row {
        guard let row = table.unwrap(record) else {
            throw DiaryError(.storageCorrupted, "the \(table.kind.rawValue) table holds a row of another kind")
        }
        return row
    }

    /// The number a `SELECT count(*)` statement returns.
    func count(_ statement: SQLStatement) async throws -> Int {
        SQLStatementLog.current?.append(statement)
        for try await count in try await connection.rows(statement, logger: logger, decode: { try $0.decode(Int64.self) }) {
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
