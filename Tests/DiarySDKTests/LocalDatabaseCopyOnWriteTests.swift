@_spi(Storage) @testable import DiarySDK
import Foundation
import Testing

/// A write to a database that a reader still holds copies what it touches, never a whole table: checked on the
/// storage itself (which nodes two copies share), not with a clock.
@Suite("Local database copy-on-write")
struct LocalDatabaseCopyOnWriteTests {
    private func user(_ number: Int) -> User {
        User(
            id: RandomStoreRecords.id(1, number), nickname: "user\(number)",
            createdAt: Date(timeIntervalSince1970: Double(number)))
    }

    /// After one put, the writer's copy shares every node of every map with the reader's but those on the path to
    /// the row's key: a handful (log₃₂ of 100,000 is 3.3; a few keys sit a level or two deeper), never a table.
    @Test func onePutOnAShared100000RowDatabaseCopiesOnlyThePathToItsKeyInEachMapItTouches() throws {
        var database = LocalDatabase()
        database.put(contentsOf: (0..<100_000).map { .user(user($0)) })
        // Posts too, so that an index over another table has nodes a put of a user must leave shared.
        var random = RandomStoreRecords(seed: 7)
        database.put(contentsOf: (0..<500).map { _ in .post(random.post()) })
        let reader = database
        database.put(.user(user(100_000)))

        func expectPathCopied(_ nodes: (shared: Int, total: Int), _ what: String, keys: Bool = true) {
            // A map with 100,000 keys has thousands of nodes (a listing's one partition has one).
            if keys { #expect(nodes.total > 1_000, "\(what): \(nodes)") }
            #expect((1...7).contains(nodes.total - nodes.shared), "\(what) copied \(nodes.total - nodes.shared) nodes")
        }
        expectPathCopied(database.sharedTableNodes(with: reader), "the tables")
        expectPathCopied(
            try database.index(StorageSchema.usersByNickname).sharedNodes(with: reader.index(StorageSchema.usersByNickname)),
            "the nickname index")
        expectPathCopied(
            try database.listing(StorageSchema.userDirectory).sharedNodes(with: reader.listing(StorageSchema.userDirectory)),
            "the user directory", keys: false)
        // Indices over other tables are not copied at all.
        let posts = try database.index(StorageSchema.postsByAuthor).sharedNodes(with: reader.index(StorageSchema.postsByAuthor))
        #expect(posts.total > 0)
        #expect(posts.shared == posts.total)

        // The reader's copy is untouched; the writer's has the row.
        #expect(reader.rowCount(of: .user) == 100_000)
        #expect(reader.record(for: .user(user(100_000).id)) == nil)
        #expect(database.record(for: .user(user(100_000).id)) == .user(user(100_000)))
        #expect(try database.rows(StorageSchema.usersByNickname, equalTo: "user100000").map(\.id) == [user(100_000).id])
    }
}
