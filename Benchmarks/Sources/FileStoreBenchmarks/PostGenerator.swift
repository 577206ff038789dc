@_spi(Engine) import DiarySDK
import DiarySDKConformance
@_spi(Engine) import DiarySDKFileStore
import Foundation
import GRDB

/// Generates the post data set through the file store's public API (accounts, then `publish` one post at a time),
/// and the same posts in SQLite from what `publish` returned.
enum PostGenerator {
    /// Ten authors; the first has half of the posts, every tenth post is anonymous.
    static func build(count: Int, directory: URL) async throws -> PostFiles {
        let storeURL = directory.appendingPathComponent("store")
        let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(storeURL, sequentialIDs: true))
        let signedOut = backend.engine(actingAs: nil)
        var users: [User] = []
        for index in 0..<12 {
            users.append(try await signedOut.createAccount(SignUpRequest(
                email: "user\(index)@example.com", password: "correct horse battery", nickname: "user\(index)")))
        }
        let authors = Array(users[0..<10])
        let reader = users[10]
        let writer = users[11]
        var random = SeededRandomGenerator(seed: 11)
        var posts: [(Post, User.ID)] = []
        posts.reserveCapacity(count)
        let start = Clock.now()
        for index in 0..<count {
            let author = index % 2 == 0 ? authors[0] : authors[1 + (index / 2) % 9]
            let body = (0..<40).map { _ in Dataset.words[Int(random.next() % UInt64(Dataset.words.count))] }
                .joined(separator: " ")
            let draft = PostDraft(
                title: "Post \(index)", body: body, tags: [Dataset.tagPool[index % 40]], isAnonymous: index % 10 == 9)
            posts.append((try await backend.repositories(signedInAs: author.id).posts.publish(draft), author.id))
            if index % 20_000 == 19_999 {
                log(String(format: "    %d posts, %.0f s", index + 1, Clock.seconds(since: start)))
            }
        }
        try await backend.close()

        try buildSQLite(directory.appendingPathComponent("db.sqlite").path, users: users, posts: posts)
        return PostFiles(count: count, directory: directory, author: authors[0].id, reader: reader.id, writer: writer.id)
    }

    /// The same users and posts in SQLite, in one transaction, the WAL checkpointed away.
    static func buildSQLite(_ path: String, users: [User], posts: [(Post, User.ID)]) throws {
        let pool = try SQLiteColumns.openPool(path, durable: false)
        try pool.write { db in
            try db.execute(sql: SQLitePosts.schema)
            for user in users {
                try db.execute(
                    sql: "INSERT INTO user (id, nickname) VALUES (?, ?)",
                    arguments: [SQLiteColumns.blob(user.id), user.nickname])
            }
            for (post, author) in posts { try SQLitePosts.insert(post, authorID: author, in: db) }
        }
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try pool.close()
    }
}
