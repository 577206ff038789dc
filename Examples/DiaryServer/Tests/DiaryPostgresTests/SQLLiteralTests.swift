@_spi(Storage) @testable import DiaryPostgres
import Foundation
import PostgresNIO
import Testing

/// Values written into a statement planned for its values (``SQLStatement/init(plannedForItsValues:)``) come back
/// from PostgreSQL exactly as they went in, whatever they hold: no value can end its literal and become SQL.
@Suite("SQL literals", .enabled(if: PostgresTestDatabase.shouldRun))
struct SQLLiteralTests {
    static let hostileTexts = [
        "", "plain", "it's", "''", "\\", "\\'", "'\\", "\\\\'; DROP TABLE x; --", "%_\\%", "E'x'", "$1", "$$",
        "line\nbreak\ttab\r", "emoji 🦆 and 한국어", "\u{FEFF}bom", "quote at end'", "backslash at end\\",
        "/* comment */ --", String(repeating: "'\\", count: 500),
    ]

    @Test(arguments: hostileTexts)
    func textComesBackAsItWent(_ text: String) async throws {
        var statement = SQLStatement(plannedForItsValues: "SELECT ")
        statement.bind(text)
        statement.append("::text")
        #expect(statement.bindings.count == 0)
        #expect(try await Self.texts(statement) == [text])
    }

    @Test func arraysNumbersUUIDsAndBooleansComeBackAsTheyWent() async throws {
        let ids = [UUID(), UUID()]
        var statement = SQLStatement(plannedForItsValues: "SELECT concat_ws('|', ")
        statement.bind(Self.hostileTexts)
        statement.append("::text[]::text, ")
        statement.bind([String]())
        statement.append("::text, ")
        statement.bind(ids)
        statement.append("::text, ")
        statement.bind([UUID]())
        statement.append("::text, ")
        statement.bind(ids[0])
        statement.append("::text, ")
        statement.bind(Int64.min)
        statement.append("::text, ")
        statement.bind(-5)
        statement.append("::text, ")
        statement.bind(true)
        statement.append("::text, 'end')")
        #expect(statement.bindings.count == 0)
        var expected = PostgresQuery(unsafeSQL: "SELECT concat_ws('|', $1::text[]::text, $2::text[]::text, $3::uuid[]::text, $4::uuid[]::text, $5::uuid::text, $6::bigint::text, $7::bigint::text, $8::boolean::text, 'end')")
        expected.binds.append(Self.hostileTexts)
        expected.binds.append([String]())
        expected.binds.append(ids)
        expected.binds.append([UUID]())
        expected.binds.append(ids[0])
        expected.binds.append(Int64.min)
        expected.binds.append(Int64(-5))
        expected.binds.append(true)
        let written = try await Self.texts(statement)
        let bound = try await Self.texts(expected)
        #expect(written == bound)
        #expect(written.first?.hasSuffix("|end") == true)
    }

    @Test func textHoldingANulIsBoundAndRefusedRatherThanWritten() async throws {
        var statement = SQLStatement(plannedForItsValues: "SELECT ")
        statement.bind("a\u{0}b")
        statement.append("::text")
        #expect(statement.bindings.count == 1)
        #expect(statement.sql == "SELECT $1::text")
        await #expect(throws: (any Error).self) { _ = try await Self.texts(statement) }
    }

    @Test func valuesWithoutALiteralAreBoundAndNumberedAmongWrittenOnes() async throws {
        // A NUL tag and a NULL are bound, the rest written in; the placeholders count only what is bound.
        var statement = SQLStatement(plannedForItsValues: "SELECT concat_ws('|', ")
        statement.bind("a'b")
        statement.append("::text, ")
        statement.bind(["x", "y\u{0}"])
        statement.append("::text[]::text, ")
        statement.bind(Int64(7))
        statement.append("::text, ")
        statement.bind(String?.none)
        statement.append("::text, ")
        statement.bind("c\\d")
        statement.append("::text)")
        #expect(statement.bindings.count == 2)
        #expect(statement.sql.contains("$1::text[]::text") && statement.sql.contains("$2::text"), "\(statement.sql)")
        #expect(!statement.sql.contains("$3"))
        // PostgreSQL refuses the NUL whether written or bound; with it replaced the numbering is checked end to end.
        await #expect(throws: (any Error).self) { _ = try await Self.texts(statement) }
        var clean = SQLStatement(plannedForItsValues: "SELECT concat_ws('|', ")
        clean.bind("a'b")
        clean.append("::text, ")
        clean.bind(Int64?.none)
        clean.append("::text, ")
        clean.bind(Int64(7))
        clean.append("::text, ")
        clean.bind(String?.none)
        clean.append("::text, ")
        clean.bind("c\\d")
        clean.append("::text)")
        #expect(clean.bindings.count == 2)
        #expect(try await Self.texts(clean) == ["a'b|7|c\\d"])
    }

    @Test func aPreparedStatementBindsEveryValue() {
        var statement = SQLStatement("SELECT ")
        statement.bind("it's")
        statement.append(", ")
        statement.bind(Int64(3))
        #expect(statement.isPrepared)
        #expect(statement.sql == "SELECT $1, $2")
        #expect(statement.bindings.count == 2)
    }

    static func texts(_ statement: SQLStatement) async throws -> [String] {
        try await texts(statement.query)
    }

    static func texts(_ query: PostgresQuery) async throws -> [String] {
        try await RawSQL.strings(query)
    }
}
