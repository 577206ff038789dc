@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

@Suite("File store text index built after opening")
struct TextIndexTests {
    /// The titles of the posts a search finds, over every page.
    static func titles(_ sdk: DiaryRepositories, _ text: String) async throws -> Set<String> {
        let page = try await sdk.posts.search(PostSearch(text: text), page: .first(size: 100))
        return Set(page.items.map(\.title))
    }

    @Test func searchesGiveTheSameAnswersBeforeAndAfterTheIndexIsInPlaceAndItKeepsTheWritesMadeMeanwhile() async throws {
        let directory = TestDirectory("text-index")
        defer { directory.remove() }
        let backend = try directory.open()
        let (alice, sdk) = try await backend.signUp("alice")
        var ids: [Post.ID] = []
        for number in 0..<60 {
            let post = try await sdk.posts.publish(PostDraft(
                title: "note \(number)", body: number.isMultiple(of: 2) ? "about fsync and journals" : "about gardens"))
            ids.append(post.id)
        }
        try await backend.store.compactNow()  // the posts come back from a snapshot, not from the journal
        try await backend.close()

        let reopened = try directory.open()
        let writer = reopened.repositories(signedInAs: alice.id)
        // Writes that land while the index may still be building: an edit that changes the words, a deletion and a
        // new post. Whichever side of the install each lands on, the installed index must reflect it.
        _ = try await writer.posts.edit(ids[0], PostEdit(body: "about gardens now"))
        try await writer.posts.delete(ids[2])
        _ = try await writer.posts.publish(PostDraft(title: "note new", body: "fsync again"))
        let fsyncBefore = try await Self.titles(writer, "fsync")
        let gardensBefore = try await Self.titles(writer, "gardens")

        await reopened.store.waitForPostTextIndex()
        #expect(reopened.store.isPostTextIndexed)
        let expectedFsync = Set((4..<60).filter { $0.isMultiple(of: 2) }.map { "note \($0)" } + ["note new"])
        let expectedGardens = Set((1..<60).filter { !$0.isMultiple(of: 2) }.map { "note \($0)" } + ["note 0"])
        #expect(try await Self.titles(writer, "fsync") == expectedFsync)
        #expect(try await Self.titles(writer, "gardens") == expectedGardens)
        #expect(fsyncBefore == expectedFsync, "searching before the index is in place walks the posts")
        #expect(gardensBefore == expectedGardens)

        // After the install, writes keep the index in step.
        _ = try await writer.posts.edit(ids[1], PostEdit(body: "fsync at last"))
        #expect(try await Self.titles(writer, "fsync") == expectedFsync.union(["note 1"]))
        try await reopened.close()
    }

    @Test func aStoreClosedRightAfterOpeningClosesCleanlyWhileItsIndexBuilds() async throws {
        let directory = TestDirectory("text-index-close")
        defer { directory.remove() }
        let backend = try directory.open()
        let (alice, sdk) = try await backend.signUp("alice")
        _ = try await sdk.posts.publish(PostDraft(title: "one", body: "fsync"))
        try await backend.close()
        let reopened = try directory.open()
        try await reopened.close()
        await reopened.store.waitForPostTextIndex()
        let again = try directory.open()
        #expect(try await Self.titles(again.repositories(signedInAs: alice.id), "fsync") == ["one"])
        try await again.close()
    }
}
