@_spi(Engine) import DiarySDK
import Foundation
import GRDB

/// How the tuned SQLite schema stores the SDK's values: ids as 16-byte blobs, dates as whole microseconds since
/// 1970 (the SDK's own precision, see `WireDate`), days as `yyyymmdd` integers.
enum SQLiteColumns {
    static func blob(_ uuid: UUID) -> Data { withUnsafeBytes(of: uuid.uuid) { Data($0) } }

    static func blob<Entity>(_ id: EntityID<Entity>) -> Data { blob(id.rawValue) }

    static func uuid(_ data: Data) -> UUID {
        var value = UUID().uuid
        withUnsafeMutableBytes(of: &value) { target in _ = data.copyBytes(to: target) }
        return UUID(uuid: value)
    }

    static func id<Entity>(_ data: Data) -> EntityID<Entity> { EntityID(uuid(data)) }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }

    static func date(_ micros: Int64) -> Date { Date(timeIntervalSince1970: Double(micros) / 1_000_000) }

    static func day(_ date: LocalDate) -> Int { date.year * 10_000 + date.month * 100 + date.day }

    static func localDate(_ value: Int) -> LocalDate {
        LocalDate(year: value / 10_000, month: value / 100 % 100, day: value % 100)!
    }

    /// Opens a WAL pool with `synchronous = FULL` on the writer (read back to check it took), or with GRDB's own
    /// `NORMAL` when `durable` is false.
    static func openPool(_ path: String, durable: Bool = true) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        // GRDB's pool sets NORMAL when it turns WAL on (GRDB/Core/Database.swift, setUpWALMode); durable commits
        // need FULL on the writer, which is the only connection that commits.
        if durable {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                let value = try Int.fetchOne(db, sql: "PRAGMA synchronous")
                precondition(value == 2, "synchronous = FULL did not take (got \(String(describing: value)))")
            }
        }
        return pool
    }

    /// The query plan's detail lines, one per step, indented by depth.
    static func queryPlan(_ sql: String, arguments: StatementArguments, in db: Database) throws -> [String] {
        var depth: [Int: Int] = [:]
        var lines: [String] = []
        for row in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments) {
            let id: Int = row["id"]
            let parent: Int = row["parent"]
            let level = (depth[parent] ?? -1) + 1
            depth[id] = level
            lines.append(String(repeating: "  ", count: level) + (row["detail"] as String))
        }
        return lines
    }
}
