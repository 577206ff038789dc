@_spi(Storage) @testable import DiarySDK
import Foundation
import Testing

/// A write to a database that a reader still holds copies what it touches, never a whole table: checked on the
/// storage itself (which shards two copies share), not with a clock.
@Suite("Local database copy-on-write")
struct LocalDatabaseCopyOnWriteTests {
    private func user(_ number: Int) -> User {
        User(
            id: RandomStoreRecords.id(1, number), nickname: "user\(number)",
            createdAt: Date(timeIntervalSince1970: Double(number)))
    }

    @Test func onePutOnAShared100000RowDatabaseCopiesOneShardOfEachMapItTouches() throws {
        var database = LocalDatabase()
        database.put(contentsOf: (0..<100_000).map { .user(user($0)) })
        #expect(database.rowCount == 100_000)
        let reader = database
        database.put(.user(user(100_000)))

        let tables = database.sharedTableShards(with: reader)
        #expect(tables.shared == tables.total - 1)
        let nicknames = try database.index(StorageSchema.usersByNickname)
            .sharedShards(with: reader.index(StorageSchema.usersByNickname))
        #expect(nicknames.shared == nicknames.total - 1)
        let directory = try database.listing(StorageSchema.userDirectory)
            .sharedShards(with: reader.listing(StorageSchema.userDirectory))
        #expect(directory.shared == directory.total - 1)
        // Indices over other tables are not copied at all.
        let posts = try database.index(StorageSchema.postsByAuthor).sharedShards(with: reader.index(StorageSchema.postsByAuthor))
        #expect(posts.shared == posts.total)

        // The reader's copy is untouched; the writer's has the row.
        #expect(reader.rowCount == 100_000)
        #expect(reader.record(for: .user(user(100_000).id)) == nil)
        #expect(database.record(for: .user(user(100_000).id)) == .user(user(100_000)))
        #expect(try database.rows(StorageSchema.usersByNickname, equalTo: "user100000").map(\.id) == [user(100_000).id])
    }
}
