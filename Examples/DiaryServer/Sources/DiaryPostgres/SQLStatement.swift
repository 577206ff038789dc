@_spi(Storage) import DiarySDK
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A statement being built: SQL text with `$n` placeholders, and the values bound to them.
///
/// Values are bound, never written into the text, except in a statement planned for its values
/// (``SQLStatement/init(plannedForItsValues:)``), where ``bind(_:)`` writes each value as a SQL literal
/// (``SQLLiteral``); identifiers come from ``SQLIdentifier``, which validates and quotes them.
struct SQLStatement: Sendable {
    private(set) var sql: String
    private(set) var bindings = PostgresBindings()
    /// Whether it runs as a named prepared statement (``PreparedSQL``) with its values bound; `false` for a statement
    /// whose best plan depends on its values (a search), whose values are written into its text.
    let isPrepared: Bool

    /// A statement starting with `sql`, run prepared with its values bound. The store's connections always use the
    /// plan PostgreSQL makes without the values (``PostgresDiaryStorage/Configuration/sessionParameters``), so the
    /// plan of such a statement is chosen once per connection and never changes with the values.
    init(_ sql: String = "") {
        self.sql = sql
        self.isPrepared = true
    }

    /// A statement starting with `sql` whose values are written into its text as literals, so PostgreSQL plans it
    /// for those values at every run (how common a search's words are decides its best plan), and that is never
    /// prepared: the store's connections plan a statement with bound values without them.
    init(plannedForItsValues sql: String) {
        self.sql = sql
        self.isPrepared = false
    }

    /// Appends SQL text (never a value).
    mutating func append(_ text: String) {
        sql += text
    }

    /// Binds a value and appends its placeholder; in a statement planned for its values, appends it as a literal
    /// instead when it has one (``SQLLiteral``).
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) {
        if !isPrepared, let literal = (value as? any SQLLiteral)?.sqlLiteral {
            sql += literal
            return
        }
        bindings.append(value)
        sql += "$\(bindings.count)"
    }

    /// Binds a value (or SQL `NULL`, always bound, so it keeps its type) and appends its placeholder (a literal in a
    /// statement planned for its values).
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) {
        guard let value else {
            bindings.append(Value?.none)
            sql += "$\(bindings.count)"
            return
        }
        bind(value)
    }

    /// The statement as postgres-nio runs it.
    var query: PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// A value that can be written into SQL text as a literal of its PostgreSQL type, for a statement planned for its
/// values (``SQLStatement/init(plannedForItsValues:)``).
///
/// Text is written as an escape string, `E'…'`, with every `\` and `'` doubled, so its meaning does not depend on
/// `standard_conforming_strings` (what libpq's `PQescapeLiteral` does too); text holding a NUL, which PostgreSQL
/// text cannot hold, has no literal and is bound instead, where PostgreSQL refuses it.
protocol SQLLiteral {
    /// The literal, or `nil` when the value has none and must be bound.
    var sqlLiteral: String? { get }
    /// The PostgreSQL type of an array's element, for an empty array's literal.
    static var sqlTypeName: String { get }
}

extension String: SQLLiteral {
    var sqlLiteral: String? {
        var literal = "E'"
        literal.reserveCapacity(utf8.count + 4)
        for scalar in unicodeScalars {
            switch scalar {
            case "\u{0}": return nil
            case "\\": literal += "\\\\"
            case "'": literal += "''"
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "'"
    }

    static var sqlTypeName: String { "text" }
}

extension Int64: SQLLiteral {
    var sqlLiteral: String? { "(\(self))::bigint" }
    static var sqlTypeName: String { "bigint" }
}

extension Int: SQLLiteral {
    var sqlLiteral: String? { "(\(self))::bigint" }
    static var sqlTypeName: String { "bigint" }
}

extension Bool: SQLLiteral {
    var sqlLiteral: String? { self ? "true" : "false" }
    static var sqlTypeName: String { "boolean" }
}

extension UUID: SQLLiteral {
    // `EntityID.description`'s text: hex digits and dashes only.
    var sqlLiteral: String? { "'\(postgresKeyText)'::uuid" }
    static var sqlTypeName: String { "uuid" }
}

extension Array: SQLLiteral where Element: SQLLiteral {
    var sqlLiteral: String? {
        guard !isEmpty else { return "'{}'::\(Element.sqlTypeName)[]" }
        var literal = "ARRAY["
        for (index, element) in enumerated() {
            guard let item = element.sqlLiteral else { return nil }
            if index > 0 { literal += "," }
            literal += item
        }
        return literal + "]::\(Element.sqlTypeName)[]"
    }

    static var sqlTypeName: String { Element.sqlTypeName + "[]" }
}

extension SQLStatement {
    /// `WITH gone AS (DELETE … RETURNING 1) SELECT count(*) FROM gone` for the oldest rows of `table` whose `column`
    /// passes `comparison date` (`<` or `<=`), at most `limit` of them, on `column`'s index. The condition is written
    /// again outside the subquery: a row renewed meanwhile is re-checked against it and stays. The limit is written
    /// into the text (an integer of the store's own): the store's connections plan a statement without its bound
    /// values, and a bound `LIMIT` is planned as a tenth of the rows, which could turn a batch's key lookups into a
    /// scan of the whole table (`PostgresQueryPlanTests` checks the plan).
    static func deleteOldest(from table: String, key: String, where column: String, _ comparison: String, _ date: Date, limit: Int) -> SQLStatement {
        var statement = SQLStatement(
            "WITH gone AS (DELETE FROM \(table) WHERE \(key) IN (SELECT \(key) FROM \(table) WHERE \(column) \(comparison) ")
        statement.bind(date)
        statement.append(" ORDER BY \(column) LIMIT \(max(limit, 0))) AND \(column) \(comparison) ")
        statement.bind(date)
        statement.append(" RETURNING 1) SELECT count(*) FROM gone")
        return statement
    }
}

extension PostgresClient {
    /// Runs a query that answers one count (`SELECT count(*) …`), 0 when it answers no row.
    /// - Throws: ``DiaryError`` for `operation` when the database refuses.
    func count(_ query: PostgresQuery, logger: Logger, operation: String) async throws -> Int {
        do {
            for try await count in try await self.query(query, logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        } catch {
            throw DiaryError.postgres(error, operation)
        }
    }
}

/// A validated, quoted SQL identifier (a schema, table or constraint name).
struct SQLIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The name as PostgreSQL stores it.
    let name: String

    /// A name: 1–63 bytes of lowercase ASCII letters, digits and `_`, not starting with a digit. Anything else is
    /// refused rather than escaped, so no identifier can smuggle SQL or depend on quoting rules.
    init?(_ name: String) {
        guard (1...63).contains(name.utf8.count), let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
            name.utf8.allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_")
            })
        else { return nil }
        self.name = name
    }

    /// The identifier quoted for SQL text.
    var description: String { "\"\(name)\"" }

    /// `schema.name`, both quoted.
    func qualified(by schema: SQLIdentifier) -> String { "\(schema).\(self)" }

    /// A snake-case identifier made from a declaration name: `"posts.byAuthorCreatedAt"` → `posts_by_author_created_at`
    /// (with a prefix such as `ix_`). `nil` when the result is not a valid identifier.
    static func snakeCase(_ name: String, prefix: String) -> SQLIdentifier? {
        var out = prefix
        var previousWasLower = false
        for character in name {
            if character == "." || character == "-" || character == " " {
                out += "_"
                previousWasLower = false
            } else if character.isUppercase {
                if previousWasLower { out += "_" }
                out += character.lowercased()
                previousWasLower = false
            } else {
                out.append(character)
                previousWasLower = character.isLowercase || character.isNumber
            }
        }
        return SQLIdentifier(out)
    }
}

extension SQLStatement {
    // Transaction control, prepared like every other statement: sent unnamed, each was parsed at every request by
    // PostgreSQL and by postgres-nio (Parse, Describe, Bind, Execute, Sync instead of Bind, Execute, Sync), 5 % of
    // the server's CPU on a create. PostgreSQL accepts a transaction's end (`COMMIT`, `ROLLBACK`, `ROLLBACK TO`)
    // in an aborted transaction, prepared or not.
    static let beginSerializable = SQLStatement("BEGIN ISOLATION LEVEL SERIALIZABLE")
    static let beginReadOnly = SQLStatement("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    static let commit = SQLStatement("COMMIT")
    static let rollback = SQLStatement("ROLLBACK")
    static let savepoint = SQLStatement("SAVEPOINT body")
    static let rollbackToSavepoint = SQLStatement("ROLLBACK TO SAVEPOINT body")
}

extension PostgresConnection {
    /// Runs a statement and reads its whole result: an error the server reports while executing it (a deadlock
    /// found while a `SELECT` waits for a lock) is thrown here, not by the next statement of the transaction.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        SQLStatementLog.current?.append(other: query.sql)
        for try await _ in try await self.query(query, logger: logger) {}
    }
}

extension PostgresClient {
    /// Runs a statement on a pooled connection and reads its whole result.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }
}

/// Runs ``SQLStatement``s as named prepared statements, so PostgreSQL parses and plans each distinct statement once
/// per connection instead of at every execution: on the reference server's hot paths planning was most of
/// PostgreSQL's time per statement (measured with `pg_stat_statements`, docs/PERFORMANCE.md).
///
/// postgres-nio prepares a ``PostgresPreparedStatement`` once per connection under its `name` and runs it by name
/// after that, but takes the name and SQL from static requirements, while the store's statements are built at run
/// time (schema-qualified, one branch per batched read). ``PreparedStatement`` answers the statics from a task-local
/// set around each call, which postgres-nio reads synchronously while it starts the call. Each distinct SQL text gets
/// a name of its own from a process-wide registry (`diary_1`, `diary_2`, …), so two texts never share a name; the
/// values are always bound, so the number of texts is bounded by the shapes of the statements, not by the data.
///
/// postgres-nio remembers a failed preparation on a connection and fails that name there from then on. A statement
/// that fails with an error a preparation can meet (a transaction already aborted, a lock timeout, a cancelled
/// statement, a missing table, a lost connection) therefore gets a new name for its next run, so such a failure never
/// sticks to a connection. Errors only execution meets (a serialisation failure, bad data, a violated constraint) keep
/// the name: retiring it on each would leave a prepared statement behind on every connection each time.
///
/// A statement whose best plan depends on its values (a search: how common its words are) is not prepared
/// (``SQLStatement/isPrepared``), so PostgreSQL plans it for its values every time; that also keeps the number of
/// names bounded by the shapes of the store's statements, since a search's text has one `LIKE` per word.
enum PreparedSQL {
    /// The statement being started on this task.
    @TaskLocal static var current: (name: String, sql: String) = ("", "")

    private struct Registry {
        var names: [String: String] = [:]
        var issued = 0
    }

    private static let registry = NIOLockedValueBox(Registry())

    /// The name for a SQL text: the same for the same text, within this process, until ``retire(_:)``.
    static func name(for sql: String) -> String {
        registry.withLockedValue { registry in
            if let name = registry.names[sql] { return name }
            registry.issued += 1
            let name = "diary_\(registry.issued)"
            registry.names[sql] = name
            return name
        }
    }

    /// Gives up a SQL text's name `name` (if it still has it): its next run prepares it anew under another.
    static func retire(_ sql: String, name: String) {
        registry.withLockedValue { registry in
            if registry.names[sql] == name { registry.names[sql] = nil }
        }
    }

    /// Starts `statement` with `execute`, under its name.
    static func start<Result>(
        _ statement: SQLStatement, _ execute: () async throws -> Result, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Result {
        let name = name(for: statement.sql)
        do {
            return try await $current.withValue((name, statement.sql)) { try await execute() }
        } catch {
            if mayHaveFailedPreparation(error) { retire(statement.sql, name: name) }
            throw error
        }
    }

    /// Whether an error may come from preparing a statement: anything but an error only its execution meets
    /// (SQLSTATE class 22, data; 23, a constraint; 40001, a serialisation failure).
    static func mayHaveFailedPreparation(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else {
            return true
        }
        return !(state.hasPrefix("22") || state.hasPrefix("23") || state == "40001")
    }

    /// A statement prepared under ``name(for:)`` of the SQL in ``current``.
    struct PreparedStatement<Row>: PostgresPreparedStatement {
        static var name: String {
            precondition(!PreparedSQL.current.name.isEmpty, "a prepared statement started outside PreparedSQL.start")
            return PreparedSQL.current.name
        }
        static var sql: String { PreparedSQL.current.sql }

        let bindings: PostgresBindings
        let decode: @Sendable (PostgresRow) throws -> Row

        func makeBindings() throws -> PostgresBindings { bindings }
        func decodeRow(_ row: PostgresRow) throws -> Row { try decode(row) }
    }
}

extension PostgresConnection {
    /// The rows of a statement, each decoded by `decode`, the statement run as a prepared one (``PreparedSQL``).
    func rows<Row>(
        _ statement: SQLStatement, logger: Logger, decode: @escaping @Sendable (PostgresRow) throws -> Row
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Row> {
        guard statement.isPrepared else { return try await query(statement.query, logger: logger).map(decode) }
        let prepared = PreparedSQL.PreparedStatement(bindings: statement.bindings, decode: decode)
        return try await PreparedSQL.start(statement) { try await execute(prepared, logger: logger) }
    }

    /// Runs a statement as a prepared one (``PreparedSQL``) and reads its whole result.
    func run(_ statement: SQLStatement, logger: Logger) async throws {
        SQLStatementLog.current?.append(other: statement.sql)
        for try await _ in try await rows(statement, logger: logger, decode: { _ in () }) {}
    }
}

extension PostgresClient {
    /// The rows of a statement on a pooled connection, each decoded by `decode`, the statement run as a prepared
    /// one (``PreparedSQL``).
    func rows<Row>(
        _ statement: SQLStatement, logger: Logger, decode: @escaping @Sendable (PostgresRow) throws -> Row
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, Row> {
        guard statement.isPrepared else { return try await query(statement.query, logger: logger).map(decode) }
        let prepared = PreparedSQL.PreparedStatement(bindings: statement.bindings, decode: decode)
        return try await PreparedSQL.start(statement) { try await execute(prepared, logger: logger) }
    }
}
