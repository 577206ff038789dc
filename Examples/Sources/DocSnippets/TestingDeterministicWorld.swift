// docs/Testing.md, "Deterministic worlds". DocSnippetTests runs it.
import DiarySDK
import DiarySDKInMemory
import Foundation

func testingDeterministicWorld() async throws {
    // snippet.show
    let clock = ManualClock(try Date("2026-03-10T12:00:00Z", strategy: .iso8601))
    let backend = InMemoryBackend(configuration: .init(clock: clock, ids: SequentialIDGenerator()))
    let (alice, bob) = backend.seed { fixtures in
        let alice = fixtures.user("alice"), bob = fixtures.user("bob")
        let post = fixtures.post(by: alice, title: "TIL", tags: ["swift"])
        fixtures.like(post, by: bob)
        return (alice, bob)
    }
    let sdk = backend.repositories(signedInAs: bob.id)   // act as bob without signing in
    // snippet.hide
    let feed = try await sdk.posts.feed(page: .first(size: 10))
    print("bob sees \(feed.items.map(\.title)) by \(alice.nickname), liked: \(feed.items.map(\.isLiked))")
}
