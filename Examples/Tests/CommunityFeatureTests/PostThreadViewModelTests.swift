import CommunityFeature
import DiarySDK
import DiarySDKFileStore
import DiarySDKInMemory
import Foundation
import Testing

/// A post's screen kept current by the change stream: on the in-memory fake (as an app's unit tests would run it) and
/// on a real file store.
@MainActor
@Suite("Post screen kept current by live changes")
struct PostThreadViewModelTests {
    /// Waits (at most five seconds) until `condition` holds for the model.
    func eventually(_ model: PostThreadViewModel, _ condition: (PostThreadViewModel.State) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition(model.state), Date() < deadline { try await Task.sleep(nanoseconds: 2_000_000) }
        return condition(model.state)
    }

    struct People {
        let reader: DiaryRepositories
        let writer: DiaryRepositories
        let post: Post
    }

    func people(on backend: InMemoryBackend) async throws -> People {
        let (reader, writer) = backend.seed { fixtures in (fixtures.user("reader"), fixtures.user("writer")) }
        let writerSDK = backend.repositories(signedInAs: writer.id)
        let post = try await writerSDK.posts.publish(PostDraft(title: "Today I learned", body: "fsync is not enough"))
        return People(reader: backend.repositories(signedInAs: reader.id), writer: writerSDK, post: post)
    }

    @Test func likesAndCommentsAppearWithoutReloading() async throws {
        let backend = InMemoryBackend()
        let people = try await people(on: backend)
        let model = PostThreadViewModel(postID: people.post.id, sdk: people.reader)
        await model.start()
        #expect(model.state.post?.likeCount == 0)

        _ = try await people.writer.posts.like(people.post.id)
        let comment = try await people.writer.comments.addComment(CommentDraft(target: .post(people.post.id), body: "and F_FULLFSYNC"))
        #expect(try await eventually(model) { $0.post?.likeCount == 1 && $0.comments.map(\.id) == [comment.id] })
        _ = try await people.writer.comments.editComment(comment.id, body: "and F_FULLFSYNC on Apple", mood: nil)
        #expect(try await eventually(model) { $0.comments.first?.body == "and F_FULLFSYNC on Apple" })
        try await people.writer.comments.deleteComment(comment.id)
        #expect(try await eventually(model) { $0.comments.isEmpty })
        try await people.writer.posts.delete(people.post.id)
        #expect(try await eventually(model) { $0.isDeleted })
        #expect(model.loadCount == 1, "one load; everything else came from the stream")
        model.stop()
    }

    @Test func aScreenThatComesBackResumesWhereItLeftOff() async throws {
        let backend = InMemoryBackend()
        let people = try await people(on: backend)
        let model = PostThreadViewModel(postID: people.post.id, sdk: people.reader)
        await model.start()
        model.stop()

        // While the screen is away.
        let first = try await people.writer.comments.addComment(CommentDraft(target: .post(people.post.id), body: "one"))
        let second = try await people.writer.comments.addComment(CommentDraft(target: .post(people.post.id), body: "two"))
        _ = try await people.writer.posts.like(people.post.id)

        await model.start()
        #expect(try await eventually(model) { $0.comments.map(\.id) == [first.id, second.id] && $0.post?.likeCount == 1 })
        #expect(model.loadCount == 1, "the missed changes were replayed, not reloaded")
        model.stop()
    }

    @Test func aPositionTheStoreNoLongerHoldsMakesTheScreenReload() async throws {
        let backend = InMemoryBackend(configuration: .init(changeLogRetention: 4))
        let people = try await people(on: backend)
        let model = PostThreadViewModel(postID: people.post.id, sdk: people.reader)
        await model.start()
        model.stop()
        for number in 1...6 {
            _ = try await people.writer.comments.addComment(CommentDraft(target: .post(people.post.id), body: "\(number)"))
        }
        await model.start()
        #expect(model.loadCount == 2, "the store could not replay six transactions past a retention of four")
        #expect(model.state.comments.map(\.body) == ["1", "2", "3", "4", "5", "6"])
        model.stop()
    }

    @Test func itWorksTheSameOnTheFileStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("post-thread-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = try FileStoreBackend(configuration: .init(
            directory: directory, engine: .init(passwordHashIterations: 1_000)))
        let reader = backend.makeRepositories()
        let writer = backend.makeRepositories()
        _ = try await reader.accounts.signUp(SignUpRequest(email: "reader@example.com", password: "correct horse battery", nickname: "reader"))
        _ = try await writer.accounts.signUp(SignUpRequest(email: "writer@example.com", password: "correct horse battery", nickname: "writer"))
        let post = try await writer.posts.publish(PostDraft(title: "On disk", body: "journal"))
        let model = PostThreadViewModel(postID: post.id, sdk: reader)
        await model.start()
        model.stop()
        let comment = try await writer.comments.addComment(CommentDraft(target: .post(post.id), body: "durable"))
        await model.start()
        #expect(try await eventually(model) { $0.comments.map(\.id) == [comment.id] })
        #expect(model.loadCount == 1)
        model.stop()
        try await backend.close()
    }
}
