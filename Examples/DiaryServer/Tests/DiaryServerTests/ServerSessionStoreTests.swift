@_spi(Engine) import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// The session stores on their own and under ``TokenService``: one behavioural suite run on memory, on the file
/// store, on the example store of ``ServerSessionStore``'s doc comment (``MySessionStore``) and on PostgreSQL (with `DIARY_TEST_DATABASE_URL`; with `CI=true` and no database it fails), the file store
/// surviving a reopen and refusing a damaged file, and refresh rotation's grace and reuse rules.
@Suite("Server session stores")
struct ServerSessionStoreTests {
    enum Kind: String, CaseIterable, Sendable { case memory, file, example, postgres }

    static let databaseURL = ProcessInfo.processInfo.environment["DIARY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// The stores the suite runs on: PostgreSQL only when there is a database, or CI wants to hear there is none.
    static let kinds: [Kind] =
        databaseURL != nil || ProcessInfo.processInfo.environment["CI"] == "true" ? Kind.allCases : [.memory, .file, .example]

    /// A store under test, and what ends it (a PostgreSQL store's schema is dropped).
    struct Opened: Sendable {
        let store: any ServerSessionStore
        let close: @Sendable () async -> Void
    }

    /// A temporary directory, removed when the test ends.
    final class Directory: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// Runs `body` on a new store of a kind, then closes it (whether `body` threw or not).
    static func withStore(_ kind: Kind, _ directory: Directory, _ body: (Opened) async throws -> Void) async throws {
        let opened = try await open(kind, directory)
        do {
            try await body(opened)
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }

    static func open(_ kind: Kind, _ directory: Directory) async throws -> Opened {
        switch kind {
        case .memory: return Opened(store: InMemoryServerSessionStore(), close: {})
        case .file: return Opened(store: try FileServerSessionStore(directory: directory.url), close: {})
        case .example: return Opened(store: MySessionStore(), close: {})
        case .postgres:
            guard let databaseURL else { throw ServerSessionStoreError(code: .io, message: "CI=true but DIARY_TEST_DATABASE_URL is not set") }
            let schema = "sessions_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let backend = try await DatabaseBackend.postgres(
                url: databaseURL, schema: schema, maximumConnections: 4,
                environment: DiaryEnvironment(clock: SystemClock(), defaultTimeZone: TimeZone(identifier: "UTC")!),
                configuration: DiaryEngine.Configuration(), logLevel: .critical)
            do {
                return Opened(store: try await backend.makeSessionStore(), close: { await backend.close(deletingData: true) })
            } catch {
                await backend.close(deletingData: true)
                throw error
            }
        }
    }

    static func options(grace: TimeInterval = 120) throws -> ServerOptions {
        try ServerOptions.parse(["--in-memory", "--refresh-grace-period", "\(Int(grace))"], environment: [:])
    }

    static let key = Array("a test signing key of 32 bytes...".utf8)
    static func user() -> User.ID { User.ID(rawValue: UUID()) }

    @Test(arguments: kinds)
    func aSessionStandsForItsOwnUsersAccessTokenUntilItIsDeclaredExpiredOrEnds(_ kind: Kind) async throws {
        let directory = try Directory()
        try await Self.withStore(kind, directory) { opened in
            let store = opened.store
            let alice = Self.user(), bob = Self.user()
            try await store.create(ServerSession(userID: alice, refreshJTI: "r1", accessJTI: "a1"), id: "s1")
            #expect(try await store.standing(of: "s1", userID: alice, accessJTI: "a1") == .current)
            #expect(try await store.standing(of: "s1", userID: bob, accessJTI: "a1") == .ended)
            #expect(try await store.standing(of: "s2", userID: alice, accessJTI: "a1") == .ended)
            // A hostile access token id is only compared, never read as anything else.
            #expect(try await store.standing(of: "s1", userID: alice, accessJTI: "a1' OR true --") == .current)
            try await store.updateAll { $0.expiredAccessJTIs.insert($0.accessJTI) }
            #expect(try await store.standing(of: "s1", userID: alice, accessJTI: "a1") == .accessExpired)
            #expect(try await store.standing(of: "s1", userID: alice, accessJTI: "a2") == .current)
            try await store.remove("s1")
            #expect(try await store.standing(of: "s1", userID: alice, accessJTI: "a2") == .ended)
        }
    }

    @Test(arguments: kinds)
    func createReadUpdateAndRemove(_ kind: Kind) async throws {
        let directory = try Directory()
        try await Self.withStore(kind, directory) { opened in
            let store = opened.store
            #expect(store is PostgresServerSessionStore == (kind == .postgres))
            let alice = Self.user(), bob = Self.user()
            try await store.create(ServerSession(userID: alice, refreshJTI: "r1"), id: "a1")
            try await store.create(ServerSession(userID: alice, refreshJTI: "r2"), id: "a2")
            try await store.create(ServerSession(userID: bob, refreshJTI: "r3"), id: "b1")
            #expect(try await store.session("a1")?.refreshJTI == "r1")
            #expect(try await store.session("none") == nil)

            let old = try await store.update("a1") { session -> (ServerSessionChange, String?) in
                guard var session else { return (.keep, nil) }
                session.refreshJTI = "r1b"
                return (.save(session), "r1")
            }
            #expect(old == "r1")
            #expect(try await store.session("a1")?.refreshJTI == "r1b")
            let missing = try await store.update("none") { session in (.keep, session == nil) }
            #expect(missing)
            #expect(try await store.session("none") == nil)

            try await store.updateAll { $0.expiredAccessJTIs.insert("x") }
            #expect(try await store.session("b1")?.expiredAccessJTIs == ["x"])

            try await store.remove("a2")
            #expect(try await store.session("a2") == nil)
            try await store.removeAll(of: alice)
            #expect(try await store.session("a1") == nil)
            #expect(try await store.session("b1") != nil)
            _ = try await store.update("b1") { _ in (ServerSessionChange.remove, ()) }
            #expect(try await store.session("b1") == nil)
        }
    }

    @Test(arguments: kinds)
    func sessionsRefreshedBeforeACutoffEnd(_ kind: Kind) async throws {
        let directory = try Directory()
        try await Self.withStore(kind, directory) { opened in
            let store = opened.store
            let user = Self.user()
            try await store.create(ServerSession(userID: user, refreshJTI: "r1", refreshedAt: Date()), id: "s1")
            #expect(try await store.removeSessions(refreshedBefore: Date().addingTimeInterval(-3600)) == 0)
            #expect(try await store.session("s1") != nil)
            #expect(try await store.removeSessions(refreshedBefore: Date().addingTimeInterval(3600)) == 1)
            #expect(try await store.session("s1") == nil)
            #expect(try await store.removeSessions(refreshedBefore: Date().addingTimeInterval(3600)) == 0)
        }
    }

    @Test func aRefreshKeepsASessionPastItsFirstTokensLifetime() async throws {
        let store = InMemoryServerSessionStore()
        let tokens = TokenService(key: Self.key, options: try Self.options(), sessions: store)
        let pair = try await tokens.issue(for: Self.user())
        let issuedAt = try #require(store.all.values.first?.refreshedAt)
        try await Task.sleep(nanoseconds: 20_000_000)
        _ = try await tokens.refresh(pair.refreshToken)
        let refreshedAt = try #require(store.all.values.first?.refreshedAt)
        #expect(refreshedAt > issuedAt, "a rotation moves the session's refresh time")
        let lifetime = try Self.options().refreshTokenLifetime
        #expect(try await tokens.removeExpiredSessions(now: issuedAt.addingTimeInterval(lifetime + 0.01)) == 0)
        #expect(try await tokens.removeExpiredSessions(now: refreshedAt.addingTimeInterval(lifetime + 1)) == 1)
    }

    @Test func theFileStoreKeepsSessionsAcrossAReopen() async throws {
        let directory = try Directory()
        let userID = Self.user()
        let options = try Self.options()
        let before = TokenService(key: Self.key, options: options, sessions: try FileServerSessionStore(directory: directory.url))
        let pair = try await before.issue(for: userID)
        let rotated = try await before.refresh(pair.refreshToken)

        let after = TokenService(key: Self.key, options: options, sessions: try FileServerSessionStore(directory: directory.url))
        #expect(try await after.verifyAccess(rotated.accessToken).userID == userID)
        // The grace period's replay survives too: the pair a lost refresh answer carried comes back.
        #expect(try await after.refresh(pair.refreshToken) == rotated)
        try await after.revokeAll(of: userID)

        let third = TokenService(key: Self.key, options: options, sessions: try FileServerSessionStore(directory: directory.url))
        await #expect(throws: DiaryError.self) { try await third.verifyAccess(rotated.accessToken) }
    }

    @Test func aDamagedSessionsFileIsATypedErrorWhenTheStoreOpens() throws {
        let directory = try Directory()
        let file = directory.url.appendingPathComponent(FileServerSessionStore.fileName)
        try Data("{\"version\":1,\"sessions\":{\"a\":".utf8).write(to: file)
        #expect(throws: ServerSessionStoreError.self) { try FileServerSessionStore(directory: directory.url) }
        do {
            _ = try FileServerSessionStore(directory: directory.url)
        } catch let error as ServerSessionStoreError {
            #expect(error.code == .damaged)
            #expect(error.message.contains(FileServerSessionStore.fileName))
        }
        // The file is left for the operator to look at, not replaced.
        #expect(try Data(contentsOf: file) == Data("{\"version\":1,\"sessions\":{\"a\":".utf8))
        try Data("{\"version\":2,\"sessions\":{}}".utf8).write(to: file)
        #expect(throws: ServerSessionStoreError(code: .damaged, message: "\(file.path) has version 2; this server reads version 1")) {
            try FileServerSessionStore(directory: directory.url)
        }
    }

    @Test(arguments: kinds)
    func refreshReplaysWithinTheGracePeriodAndEndsTheSessionOnReuse(_ kind: Kind) async throws {
        let directory = try Directory()
        try await Self.withStore(kind, directory) { opened in
            let tokens = TokenService(key: Self.key, options: try Self.options(), sessions: opened.store)
            let userID = Self.user()
            let first = try await tokens.issue(for: userID)
            let second = try await tokens.refresh(first.refreshToken)
            #expect(second.refreshToken != first.refreshToken)
            // The token just rotated away answers the same pair again (a lost answer), and the session goes on.
            #expect(try await tokens.refresh(first.refreshToken) == second)
            #expect(try await tokens.verifyAccess(second.accessToken).userID == userID)
            // Once the new token is used, the one before it is reuse: the session ends.
            let third = try await tokens.refresh(second.refreshToken)
            await #expect(throws: DiaryError.self) { try await tokens.refresh(first.refreshToken) }
            await #expect(throws: DiaryError.self) { try await tokens.verifyAccess(third.accessToken) }
            await #expect(throws: DiaryError.self) { try await tokens.refresh(third.refreshToken) }
        }
    }

    @Test(arguments: kinds)
    func afterTheGracePeriodThePreviousRefreshTokenIsReuse(_ kind: Kind) async throws {
        let directory = try Directory()
        try await Self.withStore(kind, directory) { opened in
            let tokens = TokenService(key: Self.key, options: try Self.options(grace: 0), sessions: opened.store)
            let first = try await tokens.issue(for: Self.user())
            let second = try await tokens.refresh(first.refreshToken)
            try await Task.sleep(nanoseconds: 20_000_000)
            await #expect(throws: DiaryError.self) { try await tokens.refresh(first.refreshToken) }
            await #expect(throws: DiaryError.self) { try await tokens.verifyAccess(second.accessToken) }
        }
    }

    @Test(arguments: kinds)
    func concurrentRefreshesWithOneTokenRotateOnce(_ kind: Kind) async throws {
        let directory = try Directory()
        try await Self.withStore(kind, directory) { opened in
            let tokens = TokenService(key: Self.key, options: try Self.options(), sessions: opened.store)
            let first = try await tokens.issue(for: Self.user())
            let pairs = try await withThrowingTaskGroup(of: TokenService.Pair.self) { group in
                for _ in 0..<8 { group.addTask { try await tokens.refresh(first.refreshToken) } }
                return try await group.reduce(into: [TokenService.Pair]()) { $0.append($1) }
            }
            #expect(Set(pairs.map(\.refreshToken)).count == 1)
            #expect(try await tokens.verifyAccess(pairs[0].accessToken).sid.isEmpty == false)
        }
    }

    @Test func anAccessTokenVerifiedBeforeStillExpiresAndAnAlteredOneIsStillRefused() async throws {
        // TokenService remembers the access tokens it verified; that must not outlive their expiry, and a token
        // differing in one character must be checked, and refused, on its own.
        let options = try ServerOptions.parse(["--in-memory", "--access-token-lifetime", "2"], environment: [:])
        let tokens = TokenService(key: Self.key, options: options)
        let pair = try await tokens.issue(for: Self.user())
        _ = try await tokens.verifyAccess(pair.accessToken)
        var altered = pair.accessToken
        let last = altered.removeLast()
        altered.append(last == "A" ? "Q" : "A")
        await #expect(throws: DiaryError.self) { try await tokens.verifyAccess(altered) }
        _ = try await tokens.verifyAccess(pair.accessToken)
        try await Task.sleep(for: .milliseconds(2_200))
        await #expect(throws: TokenService.expiredAccess) { try await tokens.verifyAccess(pair.accessToken) }
    }

    @Test(arguments: kinds)
    func expiringAccessTokensRefusesTheCurrentOneButNotItsSuccessor(_ kind: Kind) async throws {
        let directory = try Directory()
        try await Self.withStore(kind, directory) { opened in
            let tokens = TokenService(key: Self.key, options: try Self.options(), sessions: opened.store)
            let first = try await tokens.issue(for: Self.user())
            try await tokens.expireAccessTokens()
            await #expect(throws: TokenService.expiredAccess) { try await tokens.verifyAccess(first.accessToken) }
            let second = try await tokens.refresh(first.refreshToken)
            _ = try await tokens.verifyAccess(second.accessToken)
        }
    }
}
