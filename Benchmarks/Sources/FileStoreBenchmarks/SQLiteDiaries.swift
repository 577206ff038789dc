import DiarySDK
import Foundation
import GRDB

/// The diary entries in SQLite as a competent GRDB user would store them: integer dates and days, blob ids, cached
/// statements, and indexes that answer the month calendar without reading a row (a partial covering index: SQLite
/// 3.40 reads a row for a column of the partial index's condition unless the index also holds that column) and
/// the tag search in index order (no temporary B-tree).
enum SQLiteDiaries {
    static let schema = """
        CREATE TABLE diary (
            rowid INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE, authorID BLOB NOT NULL, bookID BLOB, day INTEGER NOT NULL,
            title TEXT NOT NULL, body TEXT NOT NULL, mood TEXT, tags TEXT NOT NULL, visibility TEXT NOT NULL,
            isHidden INTEGER NOT NULL, isFavourite INTEGER NOT NULL, createdAt INTEGER NOT NULL,
            updatedAt INTEGER NOT NULL, deletedAt INTEGER);
        CREATE TABLE diaryTag (
            tag TEXT NOT NULL, authorID BLOB NOT NULL, day INTEGER NOT NULL, createdAt INTEGER NOT NULL,
            diary INTEGER NOT NULL REFERENCES diary(rowid) ON DELETE CASCADE,
            PRIMARY KEY (tag, authorID, day, createdAt, diary)) WITHOUT ROWID;
        """

    /// Created after a bulk load, which is faster than keeping it up to date row by row.
    static let calendarIndex = """
        CREATE INDEX diary_calendar ON diary(authorID, day, createdAt, mood, isHidden, deletedAt)
            WHERE isHidden = 0 AND deletedAt IS NULL
        """

    static let insertDiary = """
        INSERT INTO diary (id, authorID, bookID, day, title, body, mood, tags, visibility, isHidden, isFavourite,
            createdAt, updatedAt, deletedAt) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
        """
    static let insertTag = "INSERT INTO diaryTag (tag, authorID, day, createdAt, diary) VALUES (?,?,?,?,?)"

    static let calendarSQL = """
        SELECT day, createdAt, mood FROM diary
        WHERE authorID = ? AND day BETWEEN ? AND ? AND isHidden = 0 AND deletedAt IS NULL
        ORDER BY day, createdAt
        """
    static let columns = """
        diary.id, diary.authorID, diary.bookID, diary.day, diary.title, diary.body, diary.mood, diary.tags,
        diary.visibility, diary.isHidden, diary.isFavourite, diary.createdAt, diary.updatedAt, diary.deletedAt
        """
    static let tagSearchSQL = """
        SELECT \(columns) FROM diaryTag JOIN diary ON diary.rowid = diaryTag.diary
        WHERE diaryTag.tag = ? AND diaryTag.authorID = ? AND diary.isHidden = 0 AND diary.deletedAt IS NULL
        ORDER BY diaryTag.day DESC, diaryTag.createdAt DESC, diaryTag.diary DESC LIMIT 20
        """
    static let firstPageSQL = """
        SELECT \(columns) FROM diary
        WHERE authorID = ? AND isHidden = 0 AND deletedAt IS NULL
        ORDER BY day DESC, createdAt DESC LIMIT 20
        """


    static func insert(_ diary: Diary, in db: Database) throws {
        let author = SQLiteColumns.blob(diary.authorID)
        let day = SQLiteColumns.day(diary.day)
        let created = SQLiteColumns.micros(diary.createdAt)
        try db.cachedStatement(sql: insertDiary).execute(arguments: [
            SQLiteColumns.blob(diary.id), author, diary.bookID.map(SQLiteColumns.blob), day, diary.title, diary.body,
            diary.mood?.rawValue, diary.tags.joined(separator: "\u{1F}"), diary.visibility.rawValue, diary.isHidden,
            diary.isFavourite, created, SQLiteColumns.micros(diary.updatedAt), diary.deletedAt.map(SQLiteColumns.micros),
        ])
        let rowID = db.lastInsertedRowID
        let tag = try db.cachedStatement(sql: insertTag)
        for name in diary.tags { try tag.execute(arguments: [name, author, day, created, rowID]) }
    }

    static func diary(_ row: Row) -> Diary {
        Diary(
            id: SQLiteColumns.id(row[0]), authorID: SQLiteColumns.id(row[1]),
            bookID: (row[2] as Data?).map(SQLiteColumns.id), day: SQLiteColumns.localDate(row[3]), title: row[4],
            body: row[5], mood: (row[6] as String?).map(Mood.init(rawValue:)),
            tags: (row[7] as String).split(separator: "\u{1F}").map(String.init),
            visibility: Diary.Visibility(rawValue: row[8]) ?? .private, isHidden: row[9], isFavourite: row[10],
            createdAt: SQLiteColumns.date(row[11]), updatedAt: SQLiteColumns.date(row[12]),
            deletedAt: (row[13] as Int64?).map(SQLiteColumns.date))
    }

    static func calendarArguments(_ month: YearMonth, author: User.ID) -> StatementArguments {
        let first = month.year * 10_000 + month.month * 100
        return [SQLiteColumns.blob(author), first + 1, first + 31]
    }

    /// The month calendar: one pass over the covering index in (day, createdAt) order, so the last mood of a day
    /// is its latest entry's, aggregated into the same `MonthCalendar` value the SDK returns.
    static func calendar(_ month: YearMonth, author: User.ID, in db: Database) throws -> MonthCalendar {
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: calendarSQL), arguments: calendarArguments(month, author: author))
        var days: [MonthCalendar.Day] = []
        var currentDay = -1
        while let row = try rows.next() {
            let day: Int = row[0]
            if day != currentDay {
                days.append(.init(date: SQLiteColumns.localDate(day), mood: nil, entryCount: 0, postCount: 0))
                currentDay = day
            }
            days[days.count - 1].entryCount += 1
            if let mood = row[2] as String? { days[days.count - 1].mood = Mood(rawValue: mood) }
        }
        return MonthCalendar(month: month, days: days)
    }

    /// The first page of an author's entries with a tag, newest day first, as `Diary` values.
    static func tagSearch(_ tag: String, author: User.ID, in db: Database) throws -> [Diary] {
        try Row.fetchAll(db.cachedStatement(sql: tagSearchSQL), arguments: [tag, SQLiteColumns.blob(author)]).map(diary)
    }

    /// The first page of an author's entries, newest day first.
    static func firstPage(author: User.ID, in db: Database) throws -> [Diary] {
        try Row.fetchAll(db.cachedStatement(sql: firstPageSQL), arguments: [SQLiteColumns.blob(author)]).map(diary)
    }

    /// EXPLAIN QUERY PLAN of the calendar and the tag search.
    static func plans(author: User.ID, in db: Database) throws -> (calendar: [String], tagSearch: [String]) {
        (
            try SQLiteColumns.queryPlan(
                calendarSQL, arguments: calendarArguments(Dataset.calendarMonth, author: author), in: db),
            try SQLiteColumns.queryPlan(
                tagSearchSQL, arguments: [Dataset.searchTag, SQLiteColumns.blob(author)], in: db)
        )
    }

    /// A new database holding entries, inserted in one transaction, its WAL checkpointed away.
    static func build(_ path: String, entries: [Diary]) throws {
        let pool = try SQLiteColumns.openPool(path, durable: false)
        try pool.write { db in
            try db.execute(sql: schema)
            for entry in entries { try insert(entry, in: db) }
            try db.execute(sql: calendarIndex)
        }
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try pool.close()
    }
}
