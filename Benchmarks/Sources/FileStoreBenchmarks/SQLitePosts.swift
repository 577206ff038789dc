import DiarySDK
import Foundation
import GRDB

/// Community posts in SQLite for the reader-under-writer figure: the feed by (createdAt, id), an author's posts by
/// (author, anonymity, createdAt, id), and full-text search through a contentless FTS5 trigram index (substring
/// matching, as the SDK's search does), each with the block filter the SDK applies.
enum SQLitePosts {
    static let schema = """
        CREATE TABLE user (id BLOB PRIMARY KEY NOT NULL, nickname TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE block (blocker BLOB NOT NULL, blocked BLOB NOT NULL, PRIMARY KEY (blocker, blocked)) WITHOUT ROWID;
        CREATE INDEX block_blocked ON block(blocked, blocker);
        CREATE TABLE post (
            id BLOB NOT NULL UNIQUE, authorID BLOB NOT NULL, isAnonymous INTEGER NOT NULL, title TEXT NOT NULL,
            body TEXT NOT NULL, tags TEXT NOT NULL, day INTEGER NOT NULL, createdAt INTEGER NOT NULL,
            updatedAt INTEGER NOT NULL);
        CREATE INDEX post_feed ON post(createdAt, id);
        CREATE INDEX post_author ON post(authorID, isAnonymous, createdAt, id);
        CREATE VIRTUAL TABLE postText USING fts5(text, content='', tokenize='trigram');
        """

    static let insertPost = """
        INSERT INTO post (id, authorID, isAnonymous, title, body, tags, day, createdAt, updatedAt)
        VALUES (?,?,?,?,?,?,?,?,?)
        """
    static let insertText = "INSERT INTO postText (rowid, text) VALUES (?, ?)"
    static let columns = """
        post.id, post.authorID, post.isAnonymous, post.title, post.body, post.tags, post.day, post.createdAt,
        post.updatedAt, user.nickname
        """
    /// Authors with a block either way with the viewer: two uncorrelated lists, each read once per query.
    static let visible = """
        post.authorID NOT IN (SELECT blocked FROM block WHERE blocker = :viewer)
        AND post.authorID NOT IN (SELECT blocker FROM block WHERE blocked = :viewer)
        """
    static let feedSQL = """
        SELECT \(columns) FROM post JOIN user ON user.id = post.authorID
        WHERE \(visible) ORDER BY post.createdAt DESC, post.id DESC LIMIT 20 OFFSET 0
        """
    /// All posts (SQLite counts a whole table from its smallest index without evaluating rows) less the posts of
    /// authors with a block either way, counted through `post_author`.
    static let countSQL = """
        SELECT (SELECT count(*) FROM post) - (SELECT count(*) FROM post WHERE authorID IN (
            SELECT blocked FROM block WHERE blocker = :viewer UNION SELECT blocker FROM block WHERE blocked = :viewer))
        """
    static let authorSQL = """
        SELECT \(columns) FROM post JOIN user ON user.id = post.authorID
        WHERE post.authorID = :author AND post.isAnonymous = 0 AND \(visible)
        ORDER BY post.createdAt DESC, post.id DESC LIMIT 20
        """
    static let searchSQL = """
        SELECT \(columns) FROM postText JOIN post ON post.rowid = postText.rowid JOIN user ON user.id = post.authorID
        WHERE postText MATCH :match AND \(visible) ORDER BY post.createdAt DESC, post.id DESC LIMIT 20
        """

    static func insert(_ post: Post, authorID: User.ID, in db: Database) throws {
        try db.cachedStatement(sql: insertPost).execute(arguments: [
            SQLiteColumns.blob(post.id), SQLiteColumns.blob(authorID), post.isAnonymous, post.title, post.body,
            post.tags.joined(separator: "\u{1F}"), SQLiteColumns.day(post.day), SQLiteColumns.micros(post.createdAt),
            SQLiteColumns.micros(post.updatedAt),
        ])
        let text = (post.title + "\n" + post.body + "\n" + post.tags.joined(separator: " ")).lowercased()
        try db.cachedStatement(sql: insertText).execute(arguments: [db.lastInsertedRowID, text])
    }

    static func post(_ row: Row, viewer: User.ID) -> Post {
        let author: User.ID = SQLiteColumns.id(row[1])
        let isAnonymous: Bool = row[2]
        return Post(
            id: SQLiteColumns.id(row[0]),
            author: isAnonymous && author != viewer ? nil : AuthorSummary(id: author, nickname: row[9]),
            isMine: author == viewer, isAnonymous: isAnonymous, title: row[3], body: row[4],
            tags: (row[5] as String).split(separator: "\u{1F}").map(String.init), images: [], source: .original,
            day: SQLiteColumns.localDate(row[6]), likeCount: 0, commentCount: 0, isLiked: false,
            createdAt: SQLiteColumns.date(row[7]), updatedAt: SQLiteColumns.date(row[8]))
    }

    /// Page 1 of the feed by page number, with the page count that a numbered page carries.
    static func feedPage(viewer: User.ID, in db: Database) throws -> (posts: [Post], total: Int) {
        let arguments: StatementArguments = ["viewer": SQLiteColumns.blob(viewer)]
        let posts = try Row.fetchAll(db.cachedStatement(sql: feedSQL), arguments: arguments).map { post($0, viewer: viewer) }
        let total = try Int.fetchOne(db.cachedStatement(sql: countSQL), arguments: arguments) ?? 0
        return (posts, total)
    }

    /// The first page of an author's named posts.
    static func authorPage(_ author: User.ID, viewer: User.ID, in db: Database) throws -> [Post] {
        try Row.fetchAll(
            db.cachedStatement(sql: authorSQL),
            arguments: ["author": SQLiteColumns.blob(author), "viewer": SQLiteColumns.blob(viewer)]
        ).map { post($0, viewer: viewer) }
    }

    /// The first page of posts containing every word (substrings, case-insensitive).
    static func search(_ text: String, viewer: User.ID, in db: Database) throws -> [Post] {
        let match = text.lowercased().split(separator: " ").map { "\"\($0)\"" }.joined(separator: " AND ")
        return try Row.fetchAll(
            db.cachedStatement(sql: searchSQL), arguments: ["match": match, "viewer": SQLiteColumns.blob(viewer)]
        ).map { post($0, viewer: viewer) }
    }

    static func plans(author: User.ID, viewer: User.ID, in db: Database) throws -> [(String, [String])] {
        let viewerBlob = SQLiteColumns.blob(viewer)
        return [
            ("feed page 1", try SQLiteColumns.queryPlan(feedSQL, arguments: ["viewer": viewerBlob], in: db)),
            ("feed page count", try SQLiteColumns.queryPlan(countSQL, arguments: ["viewer": viewerBlob], in: db)),
            ("author's posts", try SQLiteColumns.queryPlan(
                authorSQL, arguments: ["author": SQLiteColumns.blob(author), "viewer": viewerBlob], in: db)),
            ("search", try SQLiteColumns.queryPlan(
                searchSQL, arguments: ["match": "\"zqxjv\"", "viewer": viewerBlob], in: db)),
        ]
    }
}
