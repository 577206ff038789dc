@_spi(Storage) @testable import DiarySDK
import Foundation
import Testing

/// A local transaction works on its own copy: snapshots taken before it never see it, and dropping it undoes it.
@Suite("Local transactions")
struct LocalTransactionTests {
    private let alice = User(id: RandomStoreRecords.user(0), nickname: "alice", createdAt: Date(timeIntervalSince1970: 0))
    private let bob = User(id: RandomStoreRecords.user(1), nickname: "bob", createdAt: Date(timeIntervalSince1970: 1))

    private func post(_ number: Int, by author: User, _ text: String) -> PostRecord {
        let date = Date(timeIntervalSince1970: Double(number))
        return PostRecord(
            id: RandomStoreRecords.id(5, number), authorID: author.id, isAnonymous: false, title: text, body: text,
            tags: ["swift"], images: [], source: .original, day: LocalDate(year: 2024, month: 1, day: 1)!,
            createdAt: date, updatedAt: date)
    }

    private var attachment: DiarySDK.Attachment {
        DiarySDK.Attachment(
            id: RandomStoreRecords.id(2, 1), ownerID: alice.id, contentType: "image/png", byteCount: 3,
            createdAt: Date(timeIntervalSince1970: 0))
    }

    private func committed() -> LocalDatabase {
        var database = LocalDatabase()
        database.put(contentsOf: [.user(alice), .user(bob), .post(post(1, by: alice, "hello")), .attachment(attachment)])
        return database
    }

    /// What a reader sees: every row, the nickname index, the feed, a count and a search.
    private func view(_ reader: some StorageReader) async throws -> [String] {
        let feed = try await reader.page(
            StorageSchema.feed, Everything(), descending: true, from: .start, limit: 10, where: .none)
        let found = try await reader.searchPosts(
            PostTextQuery(words: ["world"], tags: []), from: .start, limit: 10, where: .none)
        return [
            "\(try await reader.record(.user(bob.id)).map { _ in "bob" } ?? "-")",
            "\(try await reader.rows(StorageSchema.usersByNickname, equalTo: "carol").map(\.nickname))",
            "\(feed.map(\.title))",
            "\(try await reader.count(StorageSchema.postsOfAuthor, alice.id, where: .none))",
            "\(found.map(\.title))",
            "\(try await reader.countPosts(matching: PostTextQuery(words: ["hello"], tags: ["swift"]), where: .none))",
        ]
    }

    @Test func aDroppedTransactionLeavesTheSnapshotItStartedFromUnchanged() async throws {
        let database = committed()
        let snapshot = LocalSnapshot(database)
        let before = try await view(snapshot)
        var transaction: LocalTransaction? = LocalTransaction(database: database)
        var carol = bob
        carol.nickname = "carol"
        try await transaction!.put(.user(carol))
        try await transaction!.put(.post(post(2, by: alice, "world")))
        try await transaction!.remove(.post(RandomStoreRecords.id(5, 1)))
        // The transaction reads its own changes...
        #expect(
            try await view(transaction!)
                == ["bob", #"["carol"]"#, #"["world"]"#, "1", #"["world"]"#, "0"])
        transaction = nil
        // ...and the state it started from never saw them.
        #expect(try await view(snapshot) == before)
        #expect(before == ["bob", "[]", #"["hello"]"#, "1", "[]", "1"])
        #expect(snapshot.database.allRecords == committed().allRecords)
    }

    @Test func aSnapshotTakenBeforeACommitDoesNotSeeIt() async throws {
        var database = committed()
        let earlier = LocalSnapshot(database)
        let transaction = LocalTransaction(database: database)
        try await transaction.put(.post(post(2, by: alice, "world")))
        var outcome = transaction.finish()
        outcome.applyRest()
        database = outcome.database
        let later = LocalSnapshot(database)
        #expect(try await earlier.searchPosts(PostTextQuery(words: ["world"], tags: []), from: .start, limit: 5, where: .none).isEmpty)
        #expect(try await later.searchPosts(PostTextQuery(words: ["world"], tags: []), from: .start, limit: 5, where: .none).count == 1)
        #expect(try await earlier.count(StorageSchema.feed, Everything(), where: .none) == 1)
        #expect(try await later.count(StorageSchema.feed, Everything(), where: .none) == 2)
    }

    @Test func aTransactionRecordsItsMutationsInOrderAndTheBlobsOfRemovedAttachments() async throws {
        let transaction = LocalTransaction(database: committed())
        var renamed = alice
        renamed.nickname = "alicia"
        try await transaction.put(.user(alice))  // unchanged: no mutation
        try await transaction.put(.user(renamed))
        try await transaction.remove(.attachment(attachment.id))
        try await transaction.remove(.user(RandomStoreRecords.user(5)))  // absent: no mutation
        #expect(
            transaction.mutations == [
                StoreMutation(before: .user(alice), after: .user(renamed)),
                StoreMutation(before: .attachment(attachment), after: nil),
            ])
        #expect(transaction.removedBlobs == [attachment.id])
        var outcome = transaction.finish()
        #expect(outcome.mutations.count == 2)
        #expect(outcome.removedBlobs == [attachment.id])
        // Nothing read the indices after the changes: they are handed over unapplied, and applied on demand.
        #expect(!outcome.isApplied)
        #expect(outcome.database.record(for: .user(alice.id)) == .user(alice))
        outcome.applyRest()
        #expect(outcome.isApplied)
        #expect(outcome.database.record(for: .user(alice.id)) == .user(renamed))
        #expect(outcome.database.record(for: .attachment(attachment.id)) == nil)
        #expect(transaction.mutations.isEmpty)
    }

    @Test func changesReachTheIndicesWhenAReadNeedsThemAndOtherwiseOnlyWhenApplied() async throws {
        // By key, a change is seen at once; an index, listing or search read files the changes before it runs; a
        // transaction that reads nothing after its changes hands them over unapplied.
        let reading = LocalTransaction(database: committed())
        var carol = bob
        carol.nickname = "carol"
        try await reading.put(.user(carol))
        try await reading.remove(.post(post(1, by: alice, "hello").id))
        #expect(try await reading.record(.user(bob.id)) == .user(carol))
        #expect(try await reading.record(.post(post(1, by: alice, "hello").id)) == nil)
        try await reading.put(.post(post(2, by: alice, "world")))
        #expect(try await reading.rows(StorageSchema.usersByNickname, equalTo: "carol").map(\.id) == [bob.id])
        #expect(try await reading.count(StorageSchema.feed, Everything(), where: .none) == 1)
        // A change after the read is pending again, and a read by key still sees it.
        try await reading.remove(.user(bob.id))
        #expect(try await reading.record(.user(bob.id)) == nil)
        var afterRead = reading.finish()
        #expect(afterRead.applied == 3 && afterRead.mutations.count == 4)
        #expect(afterRead.database.record(for: .user(bob.id)) == .user(carol))
        afterRead.applyRest()
        #expect(afterRead.database.record(for: .user(bob.id)) == nil)

        // The same changes, never read: applied at the end, they give the same database.
        let blind = LocalTransaction(database: committed())
        try await blind.put(.user(carol))
        try await blind.remove(.post(post(1, by: alice, "hello").id))
        try await blind.put(.post(post(2, by: alice, "world")))
        try await blind.remove(.user(bob.id))
        var unread = blind.finish()
        #expect(unread.applied == 0)
        unread.applyRest()
        #expect(unread.database.allRecords == afterRead.database.allRecords)
        #expect(try await view(LocalSnapshot(unread.database)) == view(LocalSnapshot(afterRead.database)))
    }
}
