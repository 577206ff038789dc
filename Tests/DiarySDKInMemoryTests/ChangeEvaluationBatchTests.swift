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
}
