@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// A statement being built: SQL text with `$n` placeholders, and the values bound to them.
///
/// Values are only ever bound, never written into the text; identifiers come from ``SQLIdentifier``, which
/// validates and quotes them.
struct SQLStatement: Sendable {
    private(set) var sql: String
    private(set) var bindings = PostgresBindings()

    /// A statement starting with `sql`.
    init(_ sql: String = "") {
        self.sql = sql
    }

    /// Appends SQL text (never a value).
    mutating func append(_ text: String) {
        sql += text
    }

    /// Binds a value and appends its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) {
        bindings.append(value)
        sql += "$\(bindings.count)"
    }

    /// Binds a value (or SQL `NULL`) and appends its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) {
        bindings.append(value)
        sql += "$\(bindings.count)"
    }

    /// The statement as postgres-nio runs it.
    var query: PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

extension SQLStatement {
    /// `WITH gone AS (DELETE … RETURNING 1) SELECT count(*) FROM gone` for the oldest rows of `table` whose `column`
    /// passes `comparison date` (`<` or `<=`), at most `limit` of them, on `column`'s index. The condition is written
    /// again outside the subquery: a row renewed meanwhile is re-checked against it and stays.
    static func deleteOldest(from table: String, key: String, where column: String, _ comparison: String, _ date: Date, limit: Int) -> SQLStatement {
        var statement = SQLStatement(
            "WITH gone AS (DELETE FROM \(table) WHERE \(key) IN (SELECT \(key) FROM \(table) WHERE \(column) \(comparison) ")
        statement.bind(date)
        statement.append(" ORDER BY \(column) LIMIT ")
        statement.bind(max(limit, 0))
        statement.append(") AND \(column) \(comparison) ")
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
