@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import DiarySDKHTTP
import DiarySDKOffline
import Foundation
import Testing

/// The offline backend against a real reference server (on the file store) that the tests stop and start again on
/// the same port and data directory.
@Suite("Offline backend against the reference server")
struct OfflineBackendTests {
    /// A server the test can stop and bring back on the same address with the same data.
    final class RestartableServer: @unchecked Sendable {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-server-\(UUID())")
        private(set) var server: ReferenceServer
        let port: Int

        init() async throws {
            server = try await ReferenceServer.start(extraArguments: [], dataDirectory: dataDirectory)
            port = server.baseURL.port ?? 0
        }

        var baseURL: URL { server.baseURL }

        /// Stops it at once (SIGKILL; every write it answered is durable). A graceful stop would wait for the
        /// devices' open change streams to end.
        func stop() async throws { try await server.killAbruptly() }

        func restart() async throws {
            server = try await ReferenceServer.start(extraArguments: ["--port", "\(port)"], dataDirectory: dataDirectory)
        }
    }

    /// A device on its own replica. `retryDelays` far apart keep its background sync from sending after the server
    /// comes back, so that a test decides the order in which devices reach the server.
    static func device(
        _ server: RestartableServer, _ label: String = "device",
        acknowledgement: OfflineBackend.WriteAcknowledgement = .local, retryDelays: ClosedRange<TimeInterval> = 0.05...0.2
    ) throws -> (OfflineBackend, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-\(label)-\(UUID())")
        var configuration = OfflineBackend.Configuration(
            directory: directory, serverURL: server.baseURL, acknowledgement: acknowledgement, retryDelays: retryDelays)
        configuration.server.retry = RetryPolicy(maximumAttempts: 1)
        configuration.server.timeout = 5
        return (try OfflineBackend(configuration: configuration), directory)
    }

    /// The server's view of a user's entries, read with a fresh HTTP client.
    static func serverEntries(_ server: RestartableServer, email: String) async throws -> [Diary] {
        let sdk = HTTPBackend(configuration: .init(baseURL: server.baseURL)).repositories
        _ = try await sdk.accounts.signIn(.password(email: email, password: "correct horse battery"))
        var entries: [Diary] = []
        let diaries = sdk.diaries
        let pages = PageSequence(first: .first(size: 100)) { try await diaries.entries(DiaryQuery(includeHidden: true), page: $0) }
        for try await diary in pages.items { entries.append(diary) }
        return entries
    }

    /// The app launched again on the same directory, its session restored. A test closes a device while the server is
    /// down and launches it again once the server is back, when the test wants it to reach the server: an open
    /// device syncs by itself as soon as it can (its live changes reconnect, and a restarted server asks them to
    /// reload, which starts a sync), so it would race the other device or the test's own writes.
    static func reopen(_ backend: OfflineBackend) async throws -> OfflineBackend {
        let reopened = try OfflineBackend(configuration: backend.configuration)
        _ = try await reopened.repositories.accounts.restoreSession()
        return reopened
    }

    static func signUp(_ backend: OfflineBackend, _ name: String) async throws -> User {
        try await backend.repositories.accounts.signUp(
            SignUpRequest(email: "\(name)@example.com", password: "correct horse battery", nickname: name))
    }

    @Test func writesMadeWhileTheServerIsDownArriveOnceAfterItComesBack() async throws {
        let server = try await RestartableServer()
        let (backend, _) = try Self.device(server)
        let sdk = backend.repositories
        let user = try await Self.signUp(backend, "subway")
        let first = try await sdk.diaries.write(DiaryDraft(title: "Before", body: "Written online."))
        try await backend.sync()
        #expect(try await Self.serverEntries(server, email: "subway@example.com").map(\.id) == [first.id])

        try await server.stop()
        let offline = try await sdk.diaries.write(DiaryDraft(title: "Tunnel", body: "Written with no server."))
        let kept = try await sdk.diaries.write(DiaryDraft(title: "Kept", body: "Also offline."))
        _ = try await sdk.diaries.edit(kept.id, DiaryEdit(title: "Kept, edited", mood: .some(nil)))
        _ = try await sdk.diaries.setFavourite(kept.id, true)
        try await sdk.diaries.delete(first.id)
        // Reads answer from the device at once.
        let page = try await sdk.diaries.entries(DiaryQuery(), page: .first())
        #expect(Set(page.items.map(\.id)) == [offline.id, kept.id])
        #expect(try await sdk.diaries.entry(kept.id).title == "Kept, edited")
        await #expect(throws: DiaryError.self) { try await backend.sync() }
        var state = await backend.syncState
        #expect(state.pendingWrites == 5)
        #expect(state.connectivity == .offline)
        #expect(state.userID == user.id)
        // What needs the server fails at once.
        let started = Date()
        let error = await #expect(throws: DiaryError.self) { _ = try await sdk.posts.feed(page: .first()) }
        #expect(error?.code == .unavailable)
        #expect(Date().timeIntervalSince(started) < 1)

        try await server.restart()
        try await backend.sync()
        state = await backend.syncState
        #expect(state.pendingWrites == 0)
        #expect(state.connectivity == .online)
        #expect(state.conflicts.isEmpty)
        let onServer = try await Self.serverEntries(server, email: "subway@example.com")
        #expect(Set(onServer.map(\.id)) == [offline.id, kept.id])
        #expect(onServer.count == 2)
        let keptOnServer = try #require(onServer.first { $0.id == kept.id })
        #expect(keptOnServer.title == "Kept, edited")
        #expect(keptOnServer.isFavourite)
        try await backend.close()
        try await server.stop()
    }

    @Test func aNewLaunchOfflineRestoresTheSessionAndSendsWhatTheLastLaunchQueued() async throws {
        let server = try await RestartableServer()
        let (backend, directory) = try Self.device(server)
        let user = try await Self.signUp(backend, "relaunch")
        try await server.stop()
        let entry = try await backend.repositories.diaries.write(DiaryDraft(title: "Queued", body: "Before a relaunch."))
        try await backend.close()

        var configuration = backend.configuration
        configuration.directory = directory
        let relaunched = try OfflineBackend(configuration: configuration)
        let restored = try await relaunched.repositories.accounts.restoreSession()
        #expect(restored?.id == user.id)
        #expect(try await relaunched.repositories.diaries.entry(entry.id).title == "Queued")
        try await server.restart()
        try await relaunched.sync()
        #expect(try await Self.serverEntries(server, email: "relaunch@example.com").map(\.id) == [entry.id])
        try await relaunched.close()
        try await server.stop()
    }

    @Test func twoDevicesEditingTheSameEntryOfflineMergeByFieldAndTheOverwrittenOneIsReported() async throws {
        let server = try await RestartableServer()
        let (phone, _) = try Self.device(server, "phone", retryDelays: 600...600)
        var (tablet, _) = try Self.device(server, "tablet", retryDelays: 600...600)
        _ = try await Self.signUp(phone, "twodevices")
        _ = try await tablet.repositories.accounts.signIn(.password(email: "twodevices@example.com", password: "correct horse battery"))
        let entry = try await phone.repositories.diaries.write(DiaryDraft(title: "Shared", body: "First body."))
        try await phone.sync()
        try await tablet.sync()
        #expect(try await tablet.repositories.diaries.entry(entry.id).title == "Shared")

        try await server.stop()
        _ = try await phone.repositories.diaries.edit(entry.id, DiaryEdit(title: "Phone title", tags: ["phone"]))
        _ = try await tablet.repositories.diaries.edit(entry.id, DiaryEdit(title: "Tablet title", body: "Tablet body."))
        try await tablet.close()
        try await server.restart()
        try await phone.sync()
        tablet = try await Self.reopen(tablet)
        try await tablet.sync()
        try await phone.sync()

        // Last writer by server order wins field by field: the tablet's title and body, the phone's tags.
        let expected = (title: "Tablet title", body: "Tablet body.", tags: ["phone"])
        for device in [phone, tablet] {
            let local = try await device.repositories.diaries.entry(entry.id)
            #expect((local.title, local.body, local.tags) == expected)
        }
        let onServer = try #require(try await Self.serverEntries(server, email: "twodevices@example.com").first)
        #expect((onServer.title, onServer.body, onServer.tags) == expected)
        // The phone's title was replaced: reported on the phone, with what it wrote and what the server has.
        let conflicts = await phone.syncState.conflicts
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.kind == .overwritten)
        #expect(conflicts.first?.fields == [.title])
        #expect(conflicts.first?.written?.title == "Phone title")
        #expect(conflicts.first?.server?.title == "Tablet title")
        #expect(await tablet.syncState.conflicts.isEmpty)
        try await phone.clearConflicts(through: try #require(conflicts.last?.id))
        #expect(await phone.syncState.conflicts.isEmpty)

        // A delete wins over an edit made offline on the other device.
        try await server.stop()
        try await phone.repositories.diaries.delete(entry.id)
        _ = try await tablet.repositories.diaries.edit(entry.id, DiaryEdit(body: "Edited after the delete."))
        try await tablet.close()
        try await server.restart()
        try await phone.sync()
        tablet = try await Self.reopen(tablet)
        try await tablet.sync()
        await #expect(throws: DiaryError.self) { _ = try await tablet.repositories.diaries.entry(entry.id) }
        let lost = await tablet.syncState.conflicts
        #expect(lost.map(\.kind) == [.deletedOnServer])
        #expect(lost.first?.written?.body == "Edited after the delete.")
        #expect(try await Self.serverEntries(server, email: "twodevices@example.com").isEmpty)
        try await phone.close()
        try await tablet.close()
        try await server.stop()
    }

    @Test func aWriteTheServerRefusesIsRolledBackOnTheDeviceAndThrownWhenWaitedFor() async throws {
        let server = try await RestartableServer()
        let (phone, _) = try Self.device(server, "phone")
        let (laptop, _) = try Self.device(server, "laptop", acknowledgement: .serverWhenReachable)
        _ = try await Self.signUp(phone, "refused")
        _ = try await laptop.repositories.accounts.signIn(.password(email: "refused@example.com", password: "correct horse battery"))
        let entry = try await laptop.repositories.diaries.write(DiaryDraft(title: "Both", body: "On both devices."))
        try await phone.sync()
        // The phone deletes it; the laptop, online and waiting for the server, edits what the server deleted.
        try await phone.repositories.diaries.delete(entry.id)
        try await phone.sync()
        let error = await #expect(throws: DiaryError.self) {
            _ = try await laptop.repositories.diaries.edit(entry.id, DiaryEdit(title: "Too late"))
        }
        #expect(error?.code == .notFound)
        await #expect(throws: DiaryError.self) { _ = try await laptop.repositories.diaries.entry(entry.id) }
        #expect(await laptop.syncState.conflicts.map(\.kind) == [.deletedOnServer])
        #expect(await laptop.syncState.pendingWrites == 0)
        try await phone.close()
        try await laptop.close()
        try await server.stop()
    }

    @Test func anUnreadableOutboxEntryIsReportedAndTheWritesAfterItAreStillSent() async throws {
        let server = try await RestartableServer()
        let (backend, directory) = try Self.device(server)
        let user = try await Self.signUp(backend, "damaged")
        try await server.stop()
        let before = try await backend.repositories.diaries.write(DiaryDraft(title: "Before", body: "Queued first."))
        await #expect(throws: DiaryError.self) { try await backend.sync() }
        try await backend.close()
        // An entry this release cannot read (a newer release's operation, or damage), queued between two writes.
        let replica = try FileStoreBackend(configuration: .init(directory: directory.appendingPathComponent("replica")))
        let queued = try await replica.storage.read("test.outbox") { reader in
            try await reader.rows(StorageSchema.outboxByUser, equalTo: user.id)
        }
        #expect(queued.count == 1)
        #expect(queued.allSatisfy { $0.attempts >= 1 }, "each failed send is counted on its entry")
        try await replica.storage.write("test.damage") { transaction in
            try await transaction.put(
                .outbox(
                    OutboxRecord(
                        id: UUID(), sequence: 1_000, userID: user.id, subject: UUID(), operation: "diaries.fromTheFuture",
                        payload: "{not json", createdAt: Date())))
        }
        try await replica.close()
        try "{ this is not the sync state".write(
            to: directory.appendingPathComponent("sync.json"), atomically: false, encoding: .utf8)

        // A damaged sync.json is set aside; the backend opens, and the session is restored.
        let reopened = try OfflineBackend(configuration: backend.configuration)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("sync.json.damaged").path))
        #expect(try await reopened.repositories.accounts.restoreSession()?.id == user.id)
        let after = try await reopened.repositories.diaries.write(DiaryDraft(title: "After", body: "Queued last."))
        try await server.restart()
        try await reopened.sync()
        let state = await reopened.syncState
        #expect(state.pendingWrites == 0)
        #expect(state.conflicts.map(\.kind) == [.rejected])
        #expect(state.conflicts.first?.errorCode == DiaryError.Code.storageCorrupted.rawValue)
        let onServer = try await Self.serverEntries(server, email: "damaged@example.com")
        #expect(Set(onServer.map(\.id)) == [before.id, after.id])
        try await reopened.close()
        try await server.stop()
    }

    @Test func commentsAndLikesMadeWhileTheServerIsDownArriveOnceAndRefusalsAreReported() async throws {
        let server = try await RestartableServer()
        let (backend, _) = try Self.device(server, "community", retryDelays: 600...600)
        let sdk = backend.repositories
        let me = try await Self.signUp(backend, "commenter")
        let bob = HTTPBackend(configuration: .init(baseURL: server.baseURL)).repositories
        _ = try await bob.accounts.signUp(
            SignUpRequest(email: "bob@example.com", password: "correct horse battery", nickname: "bob"))
        let kept = try await bob.posts.publish(PostDraft(title: "Kept", body: "Stays up."))
        let doomed = try await bob.posts.publish(PostDraft(title: "Doomed", body: "Deleted while the device is offline."))
        let bobs = try await bob.comments.addComment(CommentDraft(target: .post(kept.id), body: "first"))
        // What the app shows, it read while online: a like or a reply made offline is about one of those.
        let feed = try await sdk.posts.feed(page: .first())
        #expect(Set(feed.items.map(\.id)).isSuperset(of: [kept.id, doomed.id]))
        _ = try await sdk.comments.comments(on: .post(kept.id), page: .first())
        let online = try await sdk.comments.addComment(CommentDraft(target: .post(kept.id), body: "written online"))
        let minePost = try await sdk.posts.publish(PostDraft(title: "Mine", body: "Bob comments on it."))
        let onMine = try await bob.comments.addComment(CommentDraft(target: .post(minePost.id), body: "bob on mine"))
        _ = try await sdk.comments.comments(on: .post(minePost.id), page: .first())

        try await server.stop()
        let entry = try await sdk.diaries.write(DiaryDraft(title: "Offline", body: "An entry to comment on."))
        let onEntry = try await sdk.comments.addComment(CommentDraft(target: .diary(entry.id), body: "  a note on it  "))
        #expect(onEntry.body == "a note on it")
        #expect(onEntry.isMine && onEntry.author?.id == me.id && onEntry.author?.nickname == "commenter")
        let reply = try await sdk.comments.addComment(CommentDraft(target: .post(kept.id), parentID: bobs.id, body: "a reply"))
        #expect(reply.parentID == bobs.id)
        let edited = try await sdk.comments.editComment(online.id, body: "edited offline", mood: nil)
        #expect(edited.body == "edited offline" && edited.id == online.id)
        let removed = try await sdk.comments.addComment(CommentDraft(target: .post(kept.id), body: "written, then deleted"))
        try await sdk.comments.deleteComment(removed.id)
        let liked = try await sdk.posts.like(kept.id)
        #expect(liked.isLiked && liked.likeCount == 1)
        #expect(try await sdk.posts.like(kept.id).likeCount == 1, "liking twice counts once")
        _ = try await sdk.posts.like(doomed.id)
        let late = try await sdk.comments.addComment(CommentDraft(target: .post(doomed.id), body: "too late"))
        // The author of a post may delete others' comments on it, offline too; not on someone else's post.
        try await sdk.comments.deleteComment(onMine.id)
        let notMine = await #expect(throws: DiaryError.self) { try await sdk.comments.deleteComment(bobs.id) }
        #expect(notMine?.code == .forbidden)
        #expect(await backend.syncState.pendingWrites == 11)

        // Refused at once and never queued: bad input, a reply to a reply, a post the device never read.
        let blank = await #expect(throws: DiaryError.self) {
            _ = try await sdk.comments.addComment(CommentDraft(target: .post(kept.id), body: "   "))
        }
        #expect(blank?.code == .invalidInput)
        let nested = await #expect(throws: DiaryError.self) {
            _ = try await sdk.comments.addComment(CommentDraft(target: .post(kept.id), parentID: reply.id, body: "deeper"))
        }
        #expect(nested?.reason == .notAllowed)
        let unknown = await #expect(throws: DiaryError.self) { _ = try await sdk.posts.like(Post.ID(UUID())) }
        #expect(unknown?.code == .unavailable)
        // Reading comments answers from the server's last answer (read before "written online"), with the queued
        // comments laid over it: the reply under bob's, and the comment written then deleted gone again.
        let shown = try await sdk.comments.comments(on: .post(kept.id), page: .first()).items
        #expect(shown.map(\.id) == [bobs.id])
        #expect(shown.first?.replies.map(\.id) == [reply.id])
        #expect(shown.first?.replies.first?.body == "a reply")
        // A read never made needs the server.
        let read = await #expect(throws: DiaryError.self) {
            _ = try await sdk.comments.comments(on: .post(doomed.id), page: .first())
        }
        #expect(read?.code == .unavailable)
        #expect(await backend.syncState.pendingWrites == 11)

        try await backend.close()
        try await server.restart()
        try await bob.posts.delete(doomed.id)
        let device = try await Self.reopen(backend)
        try await device.sync()
        let state = await device.syncState
        #expect(state.pendingWrites == 0)

        // Everything arrived once, with the ids chosen on the device, in the order it was written.
        let threads = try await bob.comments.comments(on: .post(kept.id), page: .first(size: 50)).items
        let comments = threads.flatMap { [$0.comment] + $0.replies }
        #expect(comments.count == 3)
        #expect(Set(comments.map(\.id)) == [bobs.id, online.id, reply.id])
        #expect(comments.first { $0.id == online.id }?.body == "edited offline")
        #expect(threads.first { $0.id == bobs.id }?.replies.map(\.id) == [reply.id])
        #expect(
            try await device.repositories.comments.comments(on: .diary(entry.id), page: .first()).items.map(\.id)
                == [onEntry.id])
        #expect(try await bob.comments.comments(on: .post(minePost.id), page: .first()).items.isEmpty)
        let keptNow = try await bob.posts.post(kept.id)
        #expect(keptNow.likeCount == 1)
        #expect(keptNow.commentCount == 3)

        // The post deleted meanwhile: the like and the comment on it are reported, with what was written.
        #expect(Set(state.conflicts.map(\.subject)) == [.like(doomed.id), .comment(late.id)])
        #expect(state.conflicts.first { $0.subject == .like(doomed.id) }?.kind == .deletedOnServer)
        let refused = try #require(state.conflicts.first { $0.subject == .comment(late.id) })
        #expect(refused.kind == .rejected)
        #expect(refused.errorCode == DiaryError.Code.notFound.rawValue)
        #expect(refused.writtenComment?.body == "too late")
        #expect(refused.entryID == nil)

        // Online again: an unlike is sent at once (the post read first, as a screen shows it).
        _ = try await device.repositories.posts.post(kept.id)
        _ = try await device.repositories.posts.unlike(kept.id)
        #expect(try await bob.posts.post(kept.id).likeCount == 0)
        try await device.close()
        try await server.stop()
    }

    @Test func withdrawingRemovesTheUsersRowsFromTheDevice() async throws {
        let server = try await RestartableServer()
        let (backend, directory) = try Self.device(server, "withdraw")
        let user = try await Self.signUp(backend, "leaving")
        let entry = try await backend.repositories.diaries.write(DiaryDraft(title: "Mine", body: "Soon gone."))
        _ = try await backend.repositories.posts.publish(PostDraft(title: "Post", body: "Also gone."))
        _ = try await backend.repositories.posts.feed(page: .first())
        let kept = directory.appendingPathComponent("cache").appendingPathComponent(user.id.rawValue.uuidString.lowercased())
        #expect(try FileManager.default.contentsOfDirectory(atPath: kept.path).count >= 1, "the feed's answer is kept")
        try await backend.sync()
        try await backend.repositories.accounts.withdraw()
        #expect(!FileManager.default.fileExists(atPath: kept.path), "the user's kept reads are removed")
        #expect(await backend.syncState.userID == nil)
        await #expect(throws: DiaryError.self) { _ = try await backend.repositories.diaries.entry(entry.id) }
        try await backend.close()

        let replica = try FileStoreBackend(configuration: .init(directory: directory.appendingPathComponent("replica")))
        let left = try await replica.storage.read("test.left") { reader in
            (
                try await reader.rows(StorageSchema.diariesByAuthor, equalTo: user.id).count,
                try await reader.rows(StorageSchema.postsByAuthor, equalTo: user.id).count,
                try await reader.rows(StorageSchema.outboxByUser, equalTo: user.id).count,
                try await reader.user(user.id) == nil
            )
        }
        #expect(left == (0, 0, 0, true))
        try await replica.close()
        let metadata = try String(contentsOf: directory.appendingPathComponent("sync.json"), encoding: .utf8)
        #expect(!metadata.contains(user.id.rawValue.uuidString), "sync.json forgets the user")
        try await server.stop()
    }

    @Test func readsOfTheServerAnswerOfflineFromItsLastAnswerWithQueuedWritesLaidOver() async throws {
        let server = try await RestartableServer()
        let (backend, directory) = try Self.device(server, "reader", retryDelays: 600...600)
        let sdk = backend.repositories
        _ = try await Self.signUp(backend, "reader")
        let bob = HTTPBackend(configuration: .init(baseURL: server.baseURL)).repositories
        let bobUser = try await bob.accounts.signUp(
            SignUpRequest(email: "bob@example.com", password: "correct horse battery", nickname: "bob"))
        let post = try await bob.posts.publish(PostDraft(title: "Read online", body: "Then offline."))
        let bobs = try await bob.comments.addComment(CommentDraft(target: .post(post.id), body: "bob's"))
        let book = try await sdk.books.createBook(BookDraft(title: "Ours"))

        let feed = try await sdk.posts.feed(page: .first())
        let thread = try await sdk.comments.comments(on: .post(post.id), page: .first())
        let profile = try await sdk.users.user(bobUser.id)
        let books = try await sdk.books.books(page: .first())
        #expect(books.items.map(\.id) == [book.id])

        try await server.stop()
        _ = try await sdk.diaries.write(DiaryDraft(title: "Offline", body: "Makes the backend find the server gone."))
        await #expect(throws: DiaryError.self) { try await backend.sync() }
        // The same reads answer from the device.
        #expect(try await sdk.posts.feed(page: .first()) == feed)
        #expect(try await sdk.users.user(bobUser.id) == profile)
        #expect(try await sdk.books.books(page: .first()) == books)
        // With the user's queued writes over them: a like, a new comment.
        _ = try await sdk.posts.like(post.id)
        let liked = try #require(try await sdk.posts.feed(page: .first()).items.first { $0.id == post.id })
        #expect(liked.isLiked && liked.likeCount == 1)
        // Never read by id: no answer kept.
        await #expect(throws: DiaryError.self) { _ = try await sdk.posts.post(post.id) }
        let mine = try await sdk.comments.addComment(CommentDraft(target: .post(post.id), body: "mine, offline"))
        let shown = try await sdk.comments.comments(on: .post(post.id), page: .first())
        #expect(shown.items.map(\.id) == thread.items.map(\.id) + [mine.id])
        // Someone else's comment is theirs to delete.
        let forbidden = await #expect(throws: DiaryError.self) { try await sdk.comments.deleteComment(bobs.id) }
        #expect(forbidden?.code == .forbidden)
        // Reads never made, and search, need the server.
        let never = await #expect(throws: DiaryError.self) { _ = try await sdk.posts.posts(by: bobUser.id, page: .first()) }
        #expect(never?.code == .unavailable)
        let search = await #expect(throws: DiaryError.self) {
            _ = try await sdk.posts.search(PostSearch(text: "offline"), page: .first())
        }
        #expect(search?.code == .unavailable)

        // A relaunch, still offline: the kept answers are on disk, and a like can be made on what they show.
        try await backend.close()
        let relaunched = try OfflineBackend(configuration: backend.configuration)
        _ = try await relaunched.repositories.accounts.restoreSession()
        await #expect(throws: DiaryError.self) { try await relaunched.sync() }
        let again = try await relaunched.repositories.posts.feed(page: .first())
        #expect(again.items.map(\.id) == feed.items.map(\.id))
        // The like queued by the last launch shows on the kept answer.
        let stillLiked = try #require(again.items.first { $0.id == post.id })
        #expect(stillLiked.isLiked && stillLiked.likeCount == 1)
        #expect(try await relaunched.repositories.posts.like(post.id).likeCount == 1)
        // A kept answer that cannot be read is a miss, and is removed.
        let cache = directory.appendingPathComponent("cache")
        let files = try FileManager.default.subpathsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 4)
        for file in files { try Data("{ torn".utf8).write(to: cache.appendingPathComponent(file)) }
        let torn = await #expect(throws: DiaryError.self) { _ = try await relaunched.repositories.posts.feed(page: .first()) }
        #expect(torn?.code == .unavailable)

        try await server.restart()
        try await relaunched.sync()
        let onServer = try await bob.posts.post(post.id)
        #expect(onServer.likeCount == 1)
        #expect(onServer.commentCount == 2)
        try await relaunched.close()
        try await server.stop()
    }

    @Test func entriesWrittenInABookOfflineKeepTheirIdPlaceAndCommentsAndARefusedOneIsReported() async throws {
        let server = try await RestartableServer()
        let (backend, _) = try Self.device(server, "member", retryDelays: 600...600)
        let sdk = backend.repositories
        let me = try await Self.signUp(backend, "member")
        let bob = HTTPBackend(configuration: .init(baseURL: server.baseURL)).repositories
        _ = try await bob.accounts.signUp(
            SignUpRequest(email: "bob@example.com", password: "correct horse battery", nickname: "bob"))
        let book = try await bob.books.createBook(BookDraft(title: "Shared"))
        let doomed = try await bob.books.createBook(BookDraft(title: "Deleted while the device is offline"))
        _ = try await sdk.books.join(inviteCode: try await bob.books.inviteCode(for: book.id))
        _ = try await sdk.books.join(inviteCode: try await bob.books.inviteCode(for: doomed.id))
        let bobs = try await bob.diaries.write(DiaryDraft(body: "Bob's turn.", bookID: book.id))
        #expect(try await sdk.diaries.entries(DiaryQuery(bookID: book.id), page: .first()).items.map(\.id) == [bobs.id])
        let elsewhere = DiaryQuery(bookID: book.id, month: YearMonth(year: 1999, month: 1))
        #expect(try await sdk.diaries.entries(elsewhere, page: .first()).items.isEmpty)

        try await server.stop()
        let mine = try await sdk.diaries.write(DiaryDraft(title: "On the train", body: "In the book.", bookID: book.id))
        #expect(mine.bookID == book.id && mine.visibility == .members && mine.authorID == me.id)
        let edited = try await sdk.diaries.edit(mine.id, DiaryEdit(body: "Edited offline."))
        #expect(edited.body == "Edited offline." && edited.title == "On the train")
        let comment = try await sdk.comments.addComment(CommentDraft(target: .diary(mine.id), body: "My own note."))
        let second = try await sdk.diaries.write(DiaryDraft(body: "Written, then deleted.", bookID: book.id))
        try await sdk.diaries.delete(second.id)
        let lost = try await sdk.diaries.write(DiaryDraft(body: "Too late.", bookID: doomed.id))
        // Refused at once, never queued.
        let blank = await #expect(throws: DiaryError.self) {
            _ = try await sdk.diaries.write(DiaryDraft(body: "  ", bookID: book.id))
        }
        #expect(blank?.code == .invalidInput)
        let visibility = await #expect(throws: DiaryError.self) {
            _ = try await sdk.diaries.write(DiaryDraft(body: "Private?", visibility: .private, bookID: book.id))
        }
        #expect(visibility?.reason == .notAllowed)
        let others = await #expect(throws: DiaryError.self) { _ = try await sdk.diaries.edit(bobs.id, DiaryEdit(body: "Mine now")) }
        #expect(others?.code == .forbidden)
        // The book's page, offline: the server's last answer, with the queued entry first, as edited.
        // The deleted one stays as the server keeps it: a trace without its content.
        let page = try await sdk.diaries.entries(DiaryQuery(bookID: book.id), page: .first())
        #expect(page.items.map(\.id) == [second.id, mine.id, bobs.id])
        #expect(page.items.first.map { ($0.body, $0.deletedAt != nil) } ?? ("?", false) == ("", true))
        #expect(page.items.dropFirst().first?.body == "Edited offline.")
        // A page of another month has none of them.
        #expect(try await sdk.diaries.entries(elsewhere, page: .first()).items.isEmpty)
        #expect(await backend.syncState.pendingWrites == 6)
        // After a relaunch, still offline, the page is made again from the outbox.
        try await backend.close()
        let relaunched = try OfflineBackend(configuration: backend.configuration)
        _ = try await relaunched.repositories.accounts.restoreSession()
        await #expect(throws: DiaryError.self) { try await relaunched.sync() }
        let again = try await relaunched.repositories.diaries.entries(DiaryQuery(bookID: book.id), page: .first())
        #expect(again.items.map(\.id) == [second.id, mine.id, bobs.id])
        let rebuilt = try #require(again.items.first { $0.id == mine.id })
        #expect((rebuilt.title, rebuilt.body, rebuilt.authorID) == ("On the train", "Edited offline.", me.id))

        try await relaunched.close()
        try await server.restart()
        try await bob.books.deleteBook(doomed.id)
        let last = try await Self.reopen(relaunched)
        try await last.sync()
        let state = await last.syncState
        #expect(state.pendingWrites == 0)
        // On the server: the entry with its id, in its book, as edited, with its comment; the deleted one gone.
        let onServer = try await bob.diaries.entries(DiaryQuery(bookID: book.id), page: .first()).items
        let arrived = try #require(onServer.first { $0.id == mine.id })
        #expect(arrived.body == "Edited offline." && arrived.bookID == book.id)
        #expect(onServer.filter { $0.id == mine.id }.count == 1)
        #expect(onServer.first { $0.id == second.id }.map { $0.deletedAt != nil } ?? true)
        #expect(try await bob.comments.comments(on: .diary(mine.id), page: .first()).items.map(\.id) == [comment.id])
        // The entry written in the book deleted meanwhile is reported.
        #expect(state.conflicts.map(\.subject) == [.entry(lost.id)])
        #expect(state.conflicts.first?.kind == .rejected)
        #expect(state.conflicts.first?.written?.body == "Too late.", "a refused entry in a book is reported with its text")
        try await last.close()
        try await server.stop()
    }
}
