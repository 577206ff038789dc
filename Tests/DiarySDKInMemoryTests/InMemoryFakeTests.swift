@_spi(Engine) import DiarySDK
import DiarySDKInMemory
import Foundation
import Testing

/// The in-memory backend as a test double: seeding, inspection, faults, latency, reset and determinism.
@Suite("In-memory fake")
struct InMemoryFakeTests {
    let clock = ManualClock(WireDate.date(from: "2026-05-01T09:00:00Z")!)

    func makeBackend() -> InMemoryBackend {
        InMemoryBackend(configuration: .init(clock: clock, ids: SequentialIDGenerator()))
    }

    @Test func seededUsersCanSignInWithTheDefaultPassword() async throws {
        let backend = makeBackend()
        let alice = backend.seed { $0.user("alice") }
        let user = try await backend.repositories.accounts.signIn(
            .password(email: "alice@example.com", password: Fixtures.defaultPassword))
        #expect(user.id == alice.id)
    }

    @Test func seededWorldsAreVisibleThroughTheRepositories() async throws {
        let backend = makeBackend()
        let (alice, bob, post) = backend.seed { fixtures in
            let alice = fixtures.user("alice")
            let bob = fixtures.user("bob")
            let post = fixtures.post(by: alice, title: "Seeded")
            fixtures.like(post, by: bob)
            fixtures.follow(alice, by: bob)
            _ = fixtures.comment(by: bob, on: .post(post.id), body: "Seeded comment")
            return (alice, bob, post)
        }
        let sdk = backend.repositories(signedInAs: bob.id)
        let seen = try await sdk.posts.post(post.id)
        #expect(seen.likeCount == 1 && seen.isLiked && seen.commentCount == 1)
        #expect(try await sdk.social.relationship(with: alice.id).isFollowing)
    }

    @Test func sequentialIDsAndAManualClockMakeResultsDeterministic() async throws {
        func run() async throws -> Diary {
            let backend = InMemoryBackend(
                configuration: .init(clock: ManualClock(WireDate.date(from: "2026-05-01T09:00:00Z")!), ids: SequentialIDGenerator()))
            let alice = backend.seed { $0.user("alice") }
            return try await backend.repositories(signedInAs: alice.id).diaries.write(DiaryDraft(body: "Same"))
        }
        let first = try await run()
        let second = try await run()
        #expect(first == second)
        #expect(first.id.description == "00000000-0000-4000-8000-000000000002")
    }

    @Test func failNextFailsOnlyTheMatchingOperationThenRecovers() async throws {
        let backend = makeBackend()
        let alice = backend.seed { $0.user("alice") }
        let sdk = backend.repositories(signedInAs: alice.id)
        backend.failNext(2, with: DiaryError(.unavailable, "offline"), matching: "diaries.write")
        _ = try await sdk.posts.feed(page: .first())
        for _ in 0..<2 {
            await #expect(throws: DiaryError(.unavailable, "offline")) { try await sdk.diaries.write(.init(body: "x")) }
        }
        _ = try await sdk.diaries.write(.init(body: "works now"))
        #expect(try await backend.contents.diaries.count == 1)
    }

    @Test func failAlwaysMatchesAPrefixUntilCleared() async throws {
        let backend = makeBackend()
        let alice = backend.seed { $0.user("alice") }
        let sdk = backend.repositories(signedInAs: alice.id)
        backend.failAlways(matching: "posts.", with: DiaryError(.server, "boom"))
        await #expect(throws: DiaryError.self) { try await sdk.posts.feed(page: .first()) }
        await #expect(throws: DiaryError.self) { try await sdk.posts.publish(.init(title: "t", body: "b")) }
        _ = try await sdk.diaries.entries(.init(), page: .first())
        backend.clearFaults()
        _ = try await sdk.posts.feed(page: .first())
    }

    @Test func operationsAreRecordedInOrder() async throws {
        let backend = makeBackend()
        let alice = backend.seed { $0.user("alice") }
        let sdk = backend.repositories(signedInAs: alice.id)
        _ = try await sdk.diaries.write(.init(body: "one"))
        _ = try await sdk.posts.feed(page: .first())
        #expect(backend.operations == ["diaries.write", "posts.feed"])
        backend.clearOperations()
        #expect(backend.operations.isEmpty)
    }

    @Test func latencyDelaysEveryCall() async throws {
        let backend = makeBackend()
        let alice = backend.seed { $0.user("alice") }
        backend.setLatency(0.05)
        let start = Date()
        _ = try await backend.repositories(signedInAs: alice.id).posts.feed(page: .first())
        #expect(Date().timeIntervalSince(start) >= 0.05)
    }

    @Test func latencyLetsATestCancelACallInFlight() async throws {
        let backend = makeBackend()
        let alice = backend.seed { $0.user("alice") }
        backend.setLatency(5)
        let sdk = backend.repositories(signedInAs: alice.id)
        let task = Task { try await sdk.diaries.write(.init(body: "never")) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await backend.contents.diaries.isEmpty)
    }

    @Test func resetEmptiesEverything() async throws {
        let backend = makeBackend()
        let alice = backend.seed { fixtures in
            let alice = fixtures.user("alice")
            _ = fixtures.image(owner: alice)
            return alice
        }
        _ = try await backend.repositories(signedInAs: alice.id).diaries.write(.init(body: "x"))
        backend.reset()
        #expect(try await backend.contents.users.isEmpty)
        #expect(try await backend.contents.diaries.isEmpty)
        #expect(try await backend.contents.attachmentFiles == 0)
        #expect(backend.operations.isEmpty)
    }

    @Test func contentsShowAnonymousAuthorsToTheTestOnly() async throws {
        let backend = makeBackend()
        let alice = backend.seed { $0.user("alice") }
        _ = try await backend.repositories(signedInAs: alice.id).posts.publish(.init(title: "t", body: "b", isAnonymous: true))
        #expect(try await backend.contents.posts.first?.author?.id == alice.id)
    }

    @Test func theDefaultRepositoriesKeepTheirSessionInTheGivenStore() async throws {
        let store = InMemorySessionStore()
        let backend = InMemoryBackend(configuration: .init(clock: clock), sessionStore: store)
        let user = try await backend.repositories.accounts.signUp(
            .init(email: "a@example.com", password: "password123", nickname: "alice"))
        let saved = try await store.load()
        #expect(saved?.userID == user.id)
        let relaunched = backend.makeRepositories(sessionStore: store)
        #expect(try await relaunched.accounts.restoreSession()?.id == user.id)
    }
}
