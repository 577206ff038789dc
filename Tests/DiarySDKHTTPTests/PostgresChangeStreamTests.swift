import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

/// The change stream across instances: a device streaming `GET /v1/changes` from one server hears of a write made
/// through another server on the same schema, which reaches it only through PostgreSQL's change log.
@Suite("Change stream across two reference servers on one PostgreSQL schema",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct PostgresChangeStreamTests {
    @Test func aPostPublishedThroughOneServerReachesAStreamOnTheOther() async throws {
        let pair = try await TwoServers.start()
        defer { pair.stop() }
        let reader = pair.device(on: 0)
        let writer = pair.device(on: 1)
        _ = try await reader.accounts.signUp(SignUpRequest(email: "reader@example.com", password: "correct horse battery", nickname: "reader"))
        _ = try await writer.accounts.signUp(SignUpRequest(email: "writer@example.com", password: "correct horse battery", nickname: "writer"))

        let stream = reader.changes.changes()
        let inserted = Protected<Set<UUID>>([])
        let collector = Task {
            for await event in stream {
                guard let change = event.change, change.entity == .post, change.kind == .inserted else { continue }
                inserted.mutate { $0.insert(change.id) }
            }
        }
        defer { collector.cancel() }
        func heard(_ id: UUID) async throws -> Bool {
            let deadline = Date().addingTimeInterval(15)
            while !inserted.value.contains(id), Date() < deadline {
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            return inserted.value.contains(id)
        }
        // The stream is live once it carries the reader's own post, written through its own server.
        let own = try await reader.posts.publish(PostDraft(title: "from this server", body: "to see the stream is open"))
        guard try await heard(own.id.rawValue) else {
            Issue.record("the stream never carried a post written through its own server")
            return
        }

        let post = try await writer.posts.publish(PostDraft(title: "from the other server", body: "through the change log"))
        #expect(try await heard(post.id.rawValue), "the stream on the first server never carried the post published through the second")
    }
}

/// A value shared between the test and the stream's reader.
private final class Protected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
