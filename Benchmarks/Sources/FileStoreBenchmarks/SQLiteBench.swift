import DiarySDK
import Foundation
import GRDB

/// The same entries in SQLite: a `diary` table indexed by (author, day) and a `diaryTag` table keyed by
/// (tag, diary), in a WAL `DatabasePool` with `synchronous = FULL` (one fsync per commit).
enum SQLiteBench {
    static let schema = """
        CREATE TABLE diary (
            id TEXT PRIMARY KEY NOT NULL, authorID TEXT NOT NULL, bookID TEXT, day TEXT NOT NULL,
            title TEXT NOT NULL, body TEXT NOT NULL, mood TEXT, tags TEXT NOT NULL, visibility TEXT NOT NULL,
            isHidden INTEGER NOT NULL, isFavourite INTEGER NOT NULL, createdAt TEXT NOT NULL, updatedAt TEXT NOT NULL,
            deletedAt TEXT);
        CREATE INDEX diary_author_day ON diary(authorID, day);
        CREATE TABLE diaryTag (tag TEXT NOT NULL, diaryID TEXT NOT NULL, day TEXT NOT NULL,
            PRIMARY KEY (tag, diaryID)) WITHOUT ROWID;
        CREATE INDEX diaryTag_tag_day ON diaryTag(tag, day);
        """

    static func open(_ directory: URL) throws -> DatabasePool {
        let pool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
        // GRDB's pool sets synchronous = NORMAL on its connections; the durable setting goes on the writer after.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        try pool.write { try $0.execute(sql: schema) }
        return pool
    }

    static func insert(_ diary: Diary, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO diary VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)").execute(arguments: [
            diary.id.description, diary.authorID.description, diary.bookID?.description, diary.day.description,
            diary.title, diary.body, diary.mood?.rawValue, diary.tags.joined(separator: ","),
            diary.visibility.rawValue, diary.isHidden, diary.isFavourite, WireDate.string(from: diary.createdAt),
            WireDate.string(from: diary.updatedAt), diary.deletedAt.map(WireDate.string(from:)),
        ])
        let tag = try db.cachedStatement(sql: "INSERT INTO diaryTag VALUES (?,?,?)")
        for name in diary.tags { try tag.execute(arguments: [name, diary.id.description, diary.day.description]) }
    }

    static func diary(_ row: Row) -> Diary {
        Diary(
            id: Diary.ID(row["id"] as String)!, authorID: User.ID(row["authorID"] as String)!,
            bookID: (row["bookID"] as String?).flatMap(DiaryBook.ID.init), day: LocalDate(row["day"] as String)!,
            title: row["title"], body: row["body"], mood: (row["mood"] as String?).map(Mood.init(rawValue:)),
            tags: (row["tags"] as String).split(separator: ",").map(String.init),
            visibility: Diary.Visibility(rawValue: row["visibility"])!, isHidden: row["isHidden"],
            isFavourite: row["isFavourite"], createdAt: WireDate.date(from: row["createdAt"])!,
            updatedAt: WireDate.date(from: row["updatedAt"])!,
            deletedAt: (row["deletedAt"] as String?).flatMap(WireDate.date(from:)))
    }

    /// The month calendar: the entries of one author's month through the (author, day) index, aggregated per day
    /// into the same `MonthCalendar` value the SDK returns.
    static func calendar(_ month: YearMonth, author: User.ID, in db: Database) throws -> MonthCalendar {
        let first = "\(month.description)-01"
        let last = "\(month.description)-31"
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT day, mood, createdAt FROM diary
                WHERE authorID = ? AND day BETWEEN ? AND ? AND isHidden = 0 AND deletedAt IS NULL
                """, arguments: [author.description, first, last])
        var days: [String: MonthCalendar.Day] = [:]
        var moodTimes: [String: String] = [:]
        while let row = try rows.next() {
            let day: String = row["day"]
            var value = days[day] ?? .init(date: LocalDate(day)!, mood: nil, entryCount: 0, postCount: 0)
            value.entryCount += 1
            let created: String = row["createdAt"]
            if let mood = row["mood"] as String?, moodTimes[day].map({ created > $0 }) ?? true {
                value.mood = Mood(rawValue: mood)
                moodTimes[day] = created
            }
            days[day] = value
        }
        return MonthCalendar(month: month, days: days.values.sorted { $0.date < $1.date })
    }

    /// The first page of an author's entries with a tag, newest day first, as `Diary` values.
    static func tagSearch(_ tag: String, author: User.ID, in db: Database) throws -> [Diary] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT diary.* FROM diaryTag JOIN diary ON diary.id = diaryTag.diaryID
                WHERE diaryTag.tag = ? AND diary.authorID = ? AND diary.isHidden = 0 AND diary.deletedAt IS NULL
                ORDER BY diaryTag.day DESC, diary.createdAt DESC LIMIT 20
                """, arguments: [tag, author.description]
        ).map(diary)
    }

    /// Durable single-entry writes, one transaction (one commit, one fsync of the WAL) each.
    /// - Returns: Writes per second.
    static func writesPerSecond(_ pool: DatabasePool, authorID: User.ID, count: Int) throws -> Double {
        let seconds = try Timer.seconds {
            for index in 0..<count {
                let now = WireDate.normalized(Date())
                let entry = Diary(
                    id: Diary.ID(UUID()), authorID: authorID, day: LocalDate(year: 2026, month: 1, day: index % 28 + 1)!,
                    title: "Single \(index)",
                    body: "A durable single write number \(index), with a body of ordinary length for a diary.",
                    tags: ["bench", Dataset.tagPool[index % 40]], createdAt: now, updatedAt: now)
                try pool.write { try insert(entry, in: $0) }
            }
        }
        return Double(count) / seconds
    }

    /// A new database holding entries, inserted in one transaction.
    /// - Returns: The pool, its directory and the seconds the insert took.
    static func makeDatabase(_ name: String, entries: [Diary]) throws -> (DatabasePool, URL, Double) {
        let directory = temporaryDirectory(name)
        let pool = try open(directory)
        let seconds = try Timer.seconds { try pool.write { db in for entry in entries { try insert(entry, in: db) } } }
        return (pool, directory, seconds)
    }

    /// The writer connection's `synchronous` and `journal_mode`, read back.
    static func settings(_ pool: DatabasePool) throws -> (Int, String) {
        try pool.writeWithoutTransaction { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1, try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "")
        }
    }

    /// Mean seconds per month-calendar query and per first page of a tag search.
    static func queries(_ pool: DatabasePool, authorID: User.ID, count: Int) throws -> (Double, Double) {
        var days = 0
        let calendarSeconds = try Timer.seconds {
            for _ in 0..<count { days += try pool.read { try calendar(Dataset.calendarMonth, author: authorID, in: $0) }.days.count }
        }
        var found = 0
        let search = try Timer.seconds {
            for _ in 0..<count { found += try pool.read { try tagSearch(Dataset.searchTag, author: authorID, in: $0) }.count }
        }
        precondition(days > 0 && found > 0, "the queries found nothing")
        return (calendarSeconds / Double(count), search / Double(count))
    }
}

/// A pool handed across an `await` in the benchmark's top-level code.
struct GRDBPool: @unchecked Sendable {
    let pool: DatabasePool
}
