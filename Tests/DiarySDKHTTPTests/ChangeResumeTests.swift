import DiarySDK
@testable import DiarySDKHTTP
import Foundation
import Testing

/// What a device's change stream sees: each event, in order.
private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ChangeEvent] = []
    private var task: Task<Void, Never>?

    /// Starts reading `stream` into the log.
    init(_ stream: AsyncStream<ChangeEvent>) {
        task = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                lock.withLock { stored.append(event) }
            }
        }
    }

    var events: [ChangeEvent] { lock.withLock { stored } }

    /// The posts inserted, in the order their events came.
    var insertedPosts: [UUID] {
        events.compactMap { event in
            guard let change = event.change, change.entity == .post, change.kind == .inserted else { return nil }
            return change.id
        }
    }

    var reloads: Int {
        events.filter { if case .reloadRequired = $0 { true } else { false } }.count
    }

    var openings: Int {
        events.filter { if case .opened = $0 { true } else { false } }.count
    }

    /// Stops reading (the stream ends: the device goes offline).
    func stop() { task?.cancel() }

    /// Waits (up to `seconds`) until `condition` holds of the log.
    func wait(seconds: Double = 30, until condition: (EventLog) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(self), Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return condition(self)
    }
}

/// Change streams that outlive their connection: a server restart, a device offline for a while.
@Suite("Change streams resume after a position")
struct ChangeResumeTests {
    private static func signUp(_ nickname: String, on url: URL) async throws -> DiaryRepositories {
        let sdk = HTTPBackend(configuration: .init(baseURL: url, retry: RetryPolicy(maximumAttempts: 8, baseDelay: 0.2))).repositories
        _ = try await sdk.accounts.signUp(
            SignUpRequest(email: "\(nickname)@example.com", password: "correct horse battery", nickname: nickname))
        return sdk
    }

    @Test(.enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"),
          .timeLimit(.minutes(3)))
    func aStreamResumesAcrossARestartOfItsServerWithExactlyTheChangesWrittenMeanwhile() async throws {
        // The reader's server goes down mid-stream; the writer writes through another instance meanwhile; the reader's
        // server comes back on the same port; the client reconnects with Last-Event-ID and is replayed from the
        // PostgreSQL change log: each post once, in order, and no reload.
        let schema = PostgresReferenceServer.freshSchema()
        var readerServer = try await PostgresReferenceServer.start(schema: schema, extraArguments: ["--auth-rate-limit", "0"])
        let writerServer = try await PostgresReferenceServer.start(schema: schema, extraArguments: ["--auth-rate-limit", "0"])
        defer { writerServer.stop() }
        let port = try #require(readerServer.baseURL.port)
        let reader = try await Self.signUp("reader", on: readerServer.baseURL)
        let writer = try await Self.signUp("writer", on: writerServer.baseURL)
        let log = EventLog(reader.changes.changes(.feed))
        defer { log.stop() }
        #expect(try await log.wait { $0.openings == 1 }, "the stream never opened")

        let first = try await writer.posts.publish(PostDraft(title: "before", body: "the restart"))
        #expect(try await log.wait { $0.insertedPosts.contains(first.id.rawValue) }, "the stream never carried the first post")

        try await readerServer.killAbruptly()
        var meanwhile: [UUID] = []
        for index in 1...4 {
            meanwhile.append(try await writer.posts.publish(PostDraft(title: "meanwhile \(index)", body: "while it is down")).id.rawValue)
        }
        readerServer = try await PostgresReferenceServer.start(
            schema: schema, extraArguments: ["--auth-rate-limit", "0", "--port", String(port)])
        defer { readerServer.stop() }
        let last = try await writer.posts.publish(PostDraft(title: "after", body: "the restart")).id.rawValue
        let expected = [first.id.rawValue] + meanwhile + [last]
        _ = try await log.wait(seconds: 60) { $0.insertedPosts.count >= expected.count }
        try await Task.sleep(nanoseconds: 500_000_000)

        #expect(log.insertedPosts == expected, "the resumed stream is not every post once, in order")
        #expect(log.reloads == 0, "the stream asked for a reload although the change log reaches back")
        #expect(log.openings == 1)
    }

    @Test func aDeviceOfflineForAWhileGetsExactlyTheChangesItMissedAfterItsSavedPosition() async throws {
        let fixture = try await ServerFixture.make()
        let online = EventLog(fixture.sdk.changes.changes(.feed))
        #expect(try await online.wait { $0.openings == 1 }, "the stream never opened")
        let seen = try await fixture.sdk.posts.publish(PostDraft(title: "seen", body: "while online"))
        #expect(try await online.wait { $0.insertedPosts.contains(seen.id.rawValue) })
        let saved = try #require(online.events.last?.position)
        online.stop()

        var missed: [UUID] = []
        for index in 1...3 {
            missed.append(try await fixture.sdk.posts.publish(PostDraft(title: "missed \(index)", body: "offline")).id.rawValue)
        }
        let back = EventLog(fixture.sdk.changes.changes(.feed, after: saved))
        defer { back.stop() }
        #expect(try await back.wait { $0.insertedPosts.count >= missed.count })
        let live = try await fixture.sdk.posts.publish(PostDraft(title: "live", body: "after coming back")).id.rawValue
        #expect(try await back.wait { $0.insertedPosts.count >= missed.count + 1 })
        try await Task.sleep(nanoseconds: 300_000_000)

        #expect(back.insertedPosts == missed + [live], "not exactly the missed posts, then the live one")
        #expect(back.reloads == 0)
        if case .opened(let position)? = back.events.first {
            #expect(position == saved, "a resumed stream opens at the position it resumed after")
        } else {
            Issue.record("the resumed stream did not open first: \(back.events.first.map(String.init(describing:)) ?? "nothing")")
        }
        let positions = back.events.dropFirst().compactMap(\.change?.position)
        #expect(Set(positions).count == positions.count, "two changes share a position")
    }

    @Test(.timeLimit(.minutes(5)))
    func aClientABacklogBehindIsCutOffAndResumesFromTheChangeLogWithoutLosingAnEvent() async throws {
        // A client that stops reading its stream: once the server holds 4,096 events it cannot send, it ends the
        // response after those (its memory per stream stays bounded), and the client's resume from the last event it
        // received is replayed the rest from the change log: every post once, in order.
        let server = try await ReferenceServer.start(extraArguments: ["--auth-rate-limit", "0", "--change-log-rows", "1000"])
        defer { server.stop() }
        let fixture = try await ServerFixture.make(nickname: "importer", on: server)
        let token = try #require(try await fixture.store.load()?.accessToken)
        let port = try #require(server.baseURL.port)
        let world = fixture.control.world ?? ""
        // Reads give up after 10 s without a byte: sooner than the stream's 15 s keep-alive, so a stream the server
        // never ends is told apart from one it ended.
        let slow = try RawHTTPConnection(port: port, timeout: 10, receiveBuffer: 4096)
        let head = try await offPool {
            slow.send("GET /v1/changes?filter=feed HTTP/1.1\r\nHost: x\r\nX-Diary-World: \(world)\r\nAuthorization: Bearer \(token)\r\n\r\n")
            return try slow.readHead()
        }
        #expect(head.status == 200)

        // 8,000 posts of 4 KB in 80 transactions of 100 (a blog's import batches), while the client reads nothing:
        // more than the kernel's socket buffers hold (a few MB on loopback) and then 4,096 events more.
        let blog = try await fixture.sdk.blogs.register(
            .init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "https://b.example/rss")!))
        let path = "/v1/blogs/\(blog.id.description)/items/batch"
        let (batches, perBatch) = (80, 100)  // 100: the most items one import batch takes
        let filler = String(repeating: "b", count: 4000)
        for batch in 0..<batches {
            let items = (0..<perBatch).map { item in
                #"{"guid":"g\#(batch)-\#(item)","title":"T\#(batch)-\#(item)","body":"\#(filler)","tags":[],"publishedAt":"2026-03-01T00:00:00Z"}"#
            }
            let reply = try await fixture.control.send(
                "POST", path, body: Data(#"{"items":[\#(items.joined(separator: ","))]}"#.utf8), token: token)
            try #require(reply.status == 200, "import batch \(batch) answered \(reply.status): \(reply.text)")
        }
        let total = batches * perBatch
        // The server reads the transactions into the stream meanwhile; give it the time to fill the backlog.
        try await Task.sleep(nanoseconds: 3_000_000_000)

        let (body, ended) = try await offPool { slow.readChunkedBodyToItsEnd() }
        #expect(ended, "the server never ended the stream of a client that fell behind")
        var parser = ServerSentEventParser()
        let first = parser.feed(body).compactMap { HTTPChangeFeed.decode($0) }
        let before = first.compactMap { event -> UUID? in
            guard let change = event.change, change.entity == .post, change.kind == .inserted else { return nil }
            return change.id
        }
        #expect(before.count >= 4096, "the server cut the client off before it was a backlog behind (\(before.count))")
        #expect(before.count < total, "the client was never behind: it received all \(total) posts on one connection")
        let resumeAfter = try #require(first.last?.position)

        let resumed = EventLog(fixture.sdk.changes.changes(.feed, after: resumeAfter))
        defer { resumed.stop() }
        _ = try await resumed.wait(seconds: 120) { before.count + $0.insertedPosts.count >= total }
        try await Task.sleep(nanoseconds: 300_000_000)
        let all = before + resumed.insertedPosts
        #expect(all.count == total, "\(all.count) posts arrived, not \(total)")
        #expect(Set(all).count == all.count, "a post arrived twice")
        #expect(resumed.reloads == 0, "the resume asked for a reload although the change log reaches back")
        let titles = Self.insertedTitles(first) + Self.insertedTitles(resumed.events)
        let expected = (0..<batches).flatMap { batch in (0..<perBatch).map { "T\(batch)-\($0)" } }
        #expect(titles == expected, "the posts did not arrive in the order they were written")
    }

    /// The titles of the inserted posts the events carry, in order.
    private static func insertedTitles(_ events: [ChangeEvent]) -> [String] {
        events.compactMap { event in
            guard let change = event.change, change.entity == .post, change.kind == .inserted,
                case .post(let post)? = change.value
            else { return nil }
            return post.title
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aFileStoreServerRestartAsksTheStreamToReloadAndThenCarriesOn() async throws {
        // The file store keeps its change log in memory: after a restart a position from before is not one its new
        // log gave, so the resumed stream says `reloadRequired` instead of pretending nothing was missed.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var server = try await ReferenceServer.start(extraArguments: ["--auth-rate-limit", "0"], dataDirectory: directory)
        let port = try #require(server.baseURL.port)
        let sdk = try await Self.signUp("restarter", on: server.baseURL)
        let log = EventLog(sdk.changes.changes(.feed))
        defer { log.stop() }
        #expect(try await log.wait { $0.openings == 1 }, "the stream never opened")
        let before = try await sdk.posts.publish(PostDraft(title: "before", body: "the restart")).id.rawValue
        #expect(try await log.wait { $0.insertedPosts.contains(before) })

        try await server.stopAndWait()
        server = try await ReferenceServer.start(
            extraArguments: ["--auth-rate-limit", "0", "--port", String(port)], dataDirectory: directory)
        defer { server.stop() }
        #expect(try await log.wait(seconds: 60) { $0.reloads >= 1 }, "the stream never asked for a reload")
        let after = try await sdk.posts.publish(PostDraft(title: "after", body: "the restart")).id.rawValue
        #expect(try await log.wait { $0.insertedPosts.contains(after) }, "the stream did not carry on after the reload")

        let kinds = log.events.map { event -> String in
            switch event {
            case .opened: "opened"
            case .reloadRequired: "reload"
            case .changed(let change): change.entity == .post ? "post" : "other"
            }
        }.filter { $0 != "other" }
        #expect(kinds == ["opened", "post", "reload", "post"])
        #expect(log.insertedPosts == [before, after])
    }
}
