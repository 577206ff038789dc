import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

/// What an auth-state stream yielded so far.
private final class AuthStates: Sendable {
    private let seen = Locked<[AuthStateChange]>([])
    private let task: Task<Void, Never>

    init(_ repositories: DiaryRepositories) {
        let stream = repositories.accounts.authStates()
        let seen = seen
        task = Task { for await change in stream { seen.withLock { $0.append(change) } } }
    }

    deinit { task.cancel() }

    /// The events so far, once there are at least `count` (waiting up to ten seconds).
    func events(atLeast count: Int) async throws -> [AuthStateChange.Event] {
        for _ in 0..<1000 where seen.current.count < count { try await Task.sleep(nanoseconds: 10_000_000) }
        return seen.current.map(\.event)
    }

    var states: [AuthState] { seen.current.map(\.state) }
}

@Suite("HTTP backend: auth states")
struct AuthStateTests {
    @Test func aRefreshSaysTokensWereRenewedAndARefusedOneSignsOutBecauseTheSessionExpired() async throws {
        let fixture = try await ServerFixture.make()
        let user = try #require(try await fixture.sdk.accounts.restoreSession())
        let states = AuthStates(fixture.sdk)
        #expect(try await states.events(atLeast: 1) == [.initial])
        #expect(states.states == [.signedIn(user)])

        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        _ = try await fixture.sdk.posts.feed(page: .first())
        #expect(try await states.events(atLeast: 2) == [.initial, .tokenRefreshed])
        #expect(try await fixture.control.stats().refreshes == 1)

        // The server ends the session (as when the user signs out everywhere); the device learns it at its next
        // refresh, which the server refuses.
        let token = try #require(try await fixture.store.load()).accessToken
        try await fixture.control.send("POST", "/v1/auth/sign-out", token: token)
        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        let refused = await #expect(throws: DiaryError.self) { try await fixture.sdk.posts.feed(page: .first()) }
        #expect(refused?.code == .unauthenticated)
        #expect(try await states.events(atLeast: 3) == [.initial, .tokenRefreshed, .signedOut(.sessionExpired)])
        #expect(states.states.last == .signedOut)
        #expect(try await fixture.sdk.accounts.currentUser() == nil)
        #expect(try await fixture.store.load() == nil, "the refused session is no longer stored")
    }

    @Test func restoringASessionTheServerEndedLeavesTheDeviceSignedOutWithoutAnEvent() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()).accessToken
        try await fixture.control.send("POST", "/v1/auth/sign-out", token: token)
        let states = AuthStates(fixture.sdk)
        #expect(try await fixture.sdk.accounts.restoreSession() == nil)
        #expect(try await fixture.sdk.accounts.currentUser() == nil)
        // A later sign-in is the next thing the stream says: nothing came between.
        let user = try await fixture.sdk.accounts.signIn(.password(email: "alice@example.com", password: "correct horse battery"))
        #expect(try await states.events(atLeast: 2) == [.initial, .signedIn])
        #expect(states.states == [.signedOut, .signedIn(user)], "the device never counted itself signed in before")
    }

    @Test func signingOutWhileTheServerRefusesTheRefreshSaysTheUserSignedOut() async throws {
        let fixture = try await ServerFixture.make()
        _ = try #require(try await fixture.sdk.accounts.restoreSession())
        let states = AuthStates(fixture.sdk)
        let token = try #require(try await fixture.store.load()).accessToken
        try await fixture.control.send("POST", "/v1/auth/sign-out", token: token)
        try await fixture.control.send("POST", "/v1/_test/expire-access-tokens")
        // The sign-out request refreshes first, and the server refuses: the user still asked to sign out.
        try await fixture.sdk.accounts.signOut()
        #expect(try await states.events(atLeast: 2) == [.initial, .signedOut(.userSignedOut)])
        #expect(try await fixture.store.load() == nil)
    }

    @Test(.enabled(if: PostgresReferenceServer.shouldRun))
    func aServerRestartedOnItsDatabaseSignsNoOneOut() async throws {
        let schema = PostgresReferenceServer.freshSchema()
        let first = try await PostgresReferenceServer.start(schema: schema)
        let port = try #require(first.baseURL.port)
        let store = InMemorySessionStore()
        let backend = HTTPBackend(configuration: .init(
            baseURL: first.baseURL, tokenStore: store, retry: RetryPolicy(maximumAttempts: 8, baseDelay: 0.2)))
        let sdk = backend.repositories
        let states = AuthStates(sdk)
        let user = try await sdk.accounts.signUp(
            .init(email: "restart@example.com", password: "correct horse battery", nickname: "restart"))
        _ = try await sdk.posts.publish(PostDraft(title: "Before", body: "the restart"))

        try await first.stopAndWait()
        // The same address, as behind a load balancer: the client that was talking to the old process carries on.
        let second = try await PostgresReferenceServer.start(schema: schema, extraArguments: ["--port", "\(port)"])
        defer { second.stop() }
        _ = try await sdk.posts.publish(PostDraft(title: "After", body: "the restart"))
        #expect(try await sdk.posts.feed(page: .first()).items.map(\.title) == ["After", "Before"])
        #expect(try await sdk.accounts.currentUser()?.id == user.id)

        // A launch against the restarted server restores the session too.
        let relaunched = HTTPBackend(configuration: .init(baseURL: second.baseURL, tokenStore: store)).repositories
        let relaunchedStates = AuthStates(relaunched)
        #expect(try await relaunched.accounts.restoreSession()?.id == user.id)
        #expect(try await relaunchedStates.events(atLeast: 2) == [.initial, .signedIn])
        #expect(try await states.events(atLeast: 2) == [.initial, .signedIn], "no sign-out on the first device")
    }

    @Test func editsMadeAtOnceFromOneDeviceEndOnTheProfileTheServerHolds() async throws {
        let fixture = try await ServerFixture.make()
        let user = try #require(try await fixture.sdk.accounts.restoreSession())
        let states = AuthStates(fixture.sdk)
        _ = try await states.events(atLeast: 1)
        for round in 0..<12 {
            // A bio and a time zone changed at once: each answer is the profile after its own edit, so publishing them
            // as they arrive could end on the first one's, without the second's change.
            async let bio = fixture.sdk.users.updateProfile(ProfileEdit(bio: "round \(round)"))
            async let zone = fixture.sdk.users.editSettings(
                SettingsEdit(timeZoneIdentifier: round.isMultiple(of: 2) ? "Asia/Seoul" : "Europe/Paris"))
            _ = try await (bio, zone)
            let held = try await fixture.sdk.users.user(user.id)
            let events = try await states.events(atLeast: 1 + 2 * (round + 1))
            #expect(events.count == 1 + 2 * (round + 1), "one profileUpdated per edit")
            #expect(states.states.last == .signedIn(held), "round \(round): the last profile published is the one the server holds")
        }
    }
}
