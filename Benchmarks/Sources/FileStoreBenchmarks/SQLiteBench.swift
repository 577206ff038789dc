import DiarySDK
import Foundation
import GRDB

/// SQLite's side of each measurement (``SQLiteDiaries`` has the schema and the SQL).
enum SQLiteBench {
    /// Seconds per write of `count` durable single writes: one transaction each (the entry and its two tag rows),
    /// one commit, one `fsync` of the WAL with `synchronous = FULL`. SQLite's automatic checkpoints (GRDB keeps
    /// SQLite's default of 1,000 WAL pages) run inside the commits that cross the limit, so they are in these
    /// figures.
    static func writes(_ pool: DatabasePool, count: Int, from first: Int) throws -> [Double] {
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for index in first..<first + count {
            let entry = Dataset.entry(index)
            latencies.append(try Clock.seconds { try pool.write { try SQLiteDiaries.insert(entry, in: $0) } })
        }
        return latencies
    }

    /// The same writes with GRDB's default `synchronous = NORMAL`, which is not durable across a power loss, for
    /// comparison; the durable setting is restored afterwards.
    static func normalWrites(_ pool: DatabasePool, count: Int, from first: Int) throws -> [Double] {
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") }
        defer { try? pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") } }
        return try writes(pool, count: count, from: first)
    }

    /// SQLite's counterpart of the file store's compaction trigger: one transaction rewriting every entry (the
    /// WAL grows by the whole table), then `count` single writes; the checkpoint of that WAL runs in the commits
    /// that follow it.
    static func writesAfterBulkRewrite(_ pool: DatabasePool, count: Int, from first: Int) throws -> [Double] {
        try pool.write { try $0.execute(sql: "UPDATE diary SET updatedAt = updatedAt + 1") }
        return try writes(pool, count: count, from: first)
    }

    /// Mean seconds per month-calendar query, each in its own read transaction as an app would run it.
    static func calendar(_ pool: DatabasePool, count: Int) throws -> Double {
        var days = 0
        let seconds = try Clock.seconds {
            for _ in 0..<count {
                days += try pool.read { try SQLiteDiaries.calendar(Dataset.calendarMonth, author: Dataset.author, in: $0) }
                    .days.count
            }
        }
        precondition(days > 0, "the calendar found nothing")
        return seconds / Double(count)
    }

    /// Mean seconds per first page of a tag search.
    static func tagSearch(_ pool: DatabasePool, count: Int) throws -> Double {
        var found = 0
        let seconds = try Clock.seconds {
            for _ in 0..<count {
                found += try pool.read { try SQLiteDiaries.tagSearch(Dataset.searchTag, author: Dataset.author, in: $0) }
                    .count
            }
        }
        precondition(found > 0, "the tag search found nothing")
        return seconds / Double(count)
    }
}

/// A pool handed across an `await`.
struct GRDBPool: @unchecked Sendable {
    let pool: DatabasePool
}
