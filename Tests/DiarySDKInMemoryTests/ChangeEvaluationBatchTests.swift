import DiarySDK
@testable import DiarySDKInMemory
import Foundation
import Testing

/// Many change streams on one store: the streams waiting on one transaction are answered by one shared read, and
/// each still gets exactly what its own viewer may see and its own filter admits.
@Suite("Change streams sharing a read")
struct ChangeEvaluationBatchTests {
    private final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [ChangeEvent] = []
        func add(_ event: ChangeEvent) { lock.withLock { events.append(event) } }
        var changes: [DiaryChange] { lock.withLock { events.compactMap(\.change) } }
    }

    @Test func eachOfManyStreamsGetsWhatItsViewerMaySeeAndItsFilterAdmits() async throws {
        let backend = InMemoryBackend()
        func engine() -> DiaryEngine {
            DiaryEngine(
                store: backend.store, environment: backend.configuration.environment,
                configuration: backend.configuration.engine, sessionStore: InMemorySessionStore())
        }
        let author = engine()
        let writer = try await author.signUp(.init(email: "author@example.com", password: "correct horse battery", nickname: "author"))
        var readers: [DiaryEngine] = []
        for index in 0..<12 {
            let reader = engine()
            _ = try await reader.signUp(.init(email: "r\(index)@example.com", password: "correct horse battery", nickname: "reader\(index)"))
            readers.append(reader)
        }
        // Reader 0 blocks the author: the author's post is none of their business.
        try await readers[0].block(writer.id)
        let heard = readers.map { _ in Heard() }
        var tasks: [Task<Void, Never>] = []
        for (index, reader) in readers.enumerated() {
            let stream = reader.changes(index % 3 == 2 ? .notifications : .feed, after: nil)
            let log = heard[index]
            tasks.append(Task { for await event in stream { log.add(event) } })
        }
        defer { for task in tasks { task.cancel() } }
        try await Task.sleep(nanoseconds: 200_000_000)
        let post = try await author.publish(PostDraft(title: "to many", body: "one write, many streams"))
        let deadline = Date().addingTimeInterval(10)
        let expected = (1..<12).filter { $0 % 3 != 2 }
        while expected.contains(where: { heard[$0].changes.isEmpty }), Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        try await Task.sleep(nanoseconds: 200_000_000)

        for index in expected {
            let changes = heard[index].changes
            #expect(changes.map(\.id) == [post.id.rawValue], "reader \(index) heard \(changes)")
            if case .post(let seen)? = changes.first?.value {
                #expect(seen.title == "to many")
                #expect(!seen.isMine)
            } else {
                Issue.record("reader \(index)'s change carries no post")
            }
        }
        #expect(heard[0].changes.isEmpty, "a reader who blocked the author heard of the post")
        for index in (0..<12).filter({ $0 % 3 == 2 }) {
            #expect(heard[index].changes.isEmpty, "a notifications stream heard of a post")
        }
    }

    @Test func viewersSharingAReadEachSeeTheirOwnLikeAndTheCountsTheirBlocksLeave() async throws {
        // One like, heard by six streams in one shared read: the post's counts are read once for the viewers who hide
        // no one, but "liked by me" is each viewer's own, and a viewer who blocked the liker counts without their like.
        let backend = InMemoryBackend()
        func engine() -> DiaryEngine {
            DiaryEngine(
                store: backend.store, environment: backend.configuration.environment,
                configuration: backend.configuration.engine, sessionStore: InMemorySessionStore())
        }
        func signedUp(_ nickname: String) async throws -> (DiaryEngine, User) {
            let engine = engine()
            let user = try await engine.signUp(.init(email: "\(nickname)@example.com", password: "correct horse battery", nickname: nickname))
            return (engine, user)
        }
        let (author, _) = try await signedUp("author")
        let (liker, likerUser) = try await signedUp("liker")
        var readers: [DiaryEngine] = []
        for index in 0..<6 { readers.append(try await signedUp("reader\(index)").0) }
        let post = try await author.publish(PostDraft(title: "liked", body: "by some"))
        _ = try await readers[1].like(post.id)
        try await readers[2].block(likerUser.id)
        let heard = readers.map { _ in Heard() }
        var tasks: [Task<Void, Never>] = []
        for (index, reader) in readers.enumerated() {
            let stream = reader.changes(.feed, after: nil)
            let log = heard[index]
            tasks.append(Task { for await event in stream { log.add(event) } })
        }
        defer { for task in tasks { task.cancel() } }
        try await Task.sleep(nanoseconds: 200_000_000)

        _ = try await liker.like(post.id)
        let deadline = Date().addingTimeInterval(10)
        while heard.contains(where: { $0.changes.isEmpty }), Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        try await Task.sleep(nanoseconds: 200_000_000)

        for (index, log) in heard.enumerated() {
            let changes = log.changes
            guard changes.count == 1, case .post(let seen)? = changes.first?.value else {
                Issue.record("reader \(index) heard \(changes)")
                continue
            }
            #expect(changes.first?.id == post.id.rawValue)
            #expect(seen.isLiked == (index == 1), "reader \(index) sees isLiked \(seen.isLiked)")
            #expect(seen.likeCount == (index == 2 ? 1 : 2), "reader \(index) sees \(seen.likeCount) likes")
            #expect(seen.author?.nickname == "author")
        }
    }
}
