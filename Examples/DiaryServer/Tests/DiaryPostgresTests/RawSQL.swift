@_spi(Storage) import DiaryPostgres
import Foundation
import Logging
import PostgresNIO

/// SQL run behind the store's back, for tests that inspect its tables or damage a row.
enum RawSQL {
    /// Runs `sql` (trusted test text, no values) on a short-lived connection.
    static func execute(_ sql: String) async throws {
        _ = try await strings(sql)
    }

    /// The first column of every row `sql` returns, as text.
    static func strings(_ sql: String) async throws -> [String] {
        try await strings(PostgresQuery(unsafeSQL: sql))
    }

    /// The first column of every row a query (with its bound values) returns, as text.
    static func strings(_ query: PostgresQuery) async throws -> [String] {
        let configuration = try PostgresTestDatabase.configuration(schema: "unused").client
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            var values: [String] = []
            let rows = try await client.query(query)
            for try await row in rows {
                let cell = row.makeRandomAccess()[0]
                values.append((try? cell.decode(String?.self)).flatMap { $0 } ?? "")
            }
            return values
        }
    }
}
