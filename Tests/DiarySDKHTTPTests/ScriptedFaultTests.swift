import DiarySDK
@testable import DiarySDKHTTP
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTP backend under scripted network conditions")
struct ScriptedFaultTests {
    private static let emptyPage = Script.json(Page<Post>(items: [], isLastPage: true, size: 20))

    @Test func aStormOfFiftyRequestsOnAnExpiredTokenSendsExactlyOneRefresh() async throws {
        let transport = ScriptedTransport { request, _ in
            if request.url?.path == "/v1/auth/refresh" {
                try await Task.sleep(nanoseconds: 50_000_000)
                return (200, Script.tokens("access-2"))
            }
            guard request.value(forHTTPHeaderField: "Authorization") == "Bearer access-2" else {
                return (401, Script.problem(401, "unauthenticated", "the access token has expired", hint: "token_expired"))
            }
            return (200, Self.emptyPage)
        }
        let sdk = try await transport.backend(session: Script.session()).repositories
        try await withThrowingTaskGroup(of: Void.self) { group in
            for size in 1...50 {
                group.addTask { _ = try await sdk.posts.feed(page: .first(size: size)) }
            }
            try await group.waitForAll()
        }
        #expect(transport.count("POST /v1/auth/refresh") == 1)
        #expect(transport.count("GET /v1/feed") >= 50)
    }

    @Test func aRejectedRefreshSignsOutAndClearsTheTokenStore() async throws {
        let transport = ScriptedTransport { request, _ in
            if request.url?.path == "/v1/auth/refresh" {
                return (401, Script.problem(401, "unauthenticated", "the session has ended; sign in again"))
            }
            return (401, Script.problem(401, "unauthenticated", "the access token has expired", hint: "token_expired"))
        }
        let store = InMemorySessionStore()
        let sdk = try await transport.backend(session: Script.session(), store: store).repositories
        let error = await #expect(throws: DiaryError.self) { try await sdk.posts.feed(page: .first()) }
        #expect(error?.code == .unauthenticated)
        #expect(try await store.load() == nil)
        #expect(try await sdk.accounts.currentUser() == nil)
    }

    @Test func aRefreshThatFinishesAfterSignOutNeverRestoresTheSession() async throws {
        let refreshStarted = AsyncStream<Void>.makeStream()
        let releaseRefresh = AsyncStream<Void>.makeStream()
        let transport = ScriptedTransport { request, _ in
            switch request.url?.path {
            case "/v1/auth/refresh":
                refreshStarted.continuation.yield()
                for await _ in releaseRefresh.stream { break }
                return (200, Script.tokens("access-2"))
            case "/v1/auth/sign-out":
                return (204, Data())
            default:
                if request.value(forHTTPHeaderField: "Authorization") == "Bearer access-2" { return (200, Self.emptyPage) }
                return (401, Script.problem(401, "unauthenticated", "the access token has expired", hint: "token_expired"))
            }
        }
        let store = InMemorySessionStore()
        let sdk = try await transport.backend(session: Script.session(), store: store).repositories
        let pending = Task { try await sdk.posts.feed(page: .first()) }
        for await _ in refreshStarted.stream { break }
        try await sdk.accounts.signOut()
        releaseRefresh.continuation.yield()
        let result = await pending.result
        #expect(throws: DiaryError.self) { try result.get() }
        #expect(try await store.load() == nil, "the late refresh did not write the old session back")
        #expect(try await sdk.accounts.currentUser() == nil)
    }

    @Test func aPushTokenRememberedWhileARefreshRunsIsKeptInTheRenewedSession() async throws {
        let refreshStarted = AsyncStream<Void>.makeStream()
        let releaseRefresh = AsyncStream<Void>.makeStream()
        let transport = ScriptedTransport { request, _ in
            switch (request.httpMethod, request.url?.path) {
            case (_, "/v1/auth/refresh"):
                refreshStarted.continuation.yield()
                for await _ in releaseRefresh.stream { break }
                return (200, Script.tokens("access-2"))
            case ("PUT", "/v1/me/devices"):
                return (204, Data())
            default:
                if request.value(forHTTPHeaderField: "Authorization") == "Bearer access-2" { return (200, Self.emptyPage) }
                return (401, Script.problem(401, "unauthenticated", "the access token has expired", hint: "token_expired"))
            }
        }
        let store = InMemorySessionStore()
        let sdk = try await transport.backend(session: Script.session(), store: store).repositories
        let pending = Task { try await sdk.posts.feed(page: .first()) }
        for await _ in refreshStarted.stream { break }
        try await sdk.accounts.registerDeviceToken(DeviceToken(token: "apns-during-refresh", platform: .apns))
        releaseRefresh.continuation.yield()
        _ = try await pending.value
        let kept = try #require(try await store.load())
        #expect(kept.accessToken == "access-2")
        #expect(kept.deviceTokens == ["apns-during-refresh"], "sign-out must still unregister it")
    }

    @Test func aDoubleTappedCreateSendsOneRequest() async throws {
        let post = Post(
            id: Post.ID(UUID()), author: nil, isMine: true, isAnonymous: false, title: "Hi", body: "there", tags: [], images: [],
            source: .original, day: LocalDate("2026-01-01")!, likeCount: 0, commentCount: 0, isLiked: false,
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        let transport = ScriptedTransport { _, _ in
            try await Task.sleep(nanoseconds: 200_000_000)
            return (201, Script.json(post))
        }
        let session = Script.validSession()
        let sdk = try await transport.backend(session: session).repositories
        async let first = sdk.posts.publish(.init(title: "Hi", body: "there"))
        async let second = sdk.posts.publish(.init(title: "Hi", body: "there"))
        let (a, b) = try await (first, second)
        #expect(a.id == post.id && b.id == post.id)
        #expect(transport.count("POST /v1/posts") == 1)
    }

    /// A transport whose requests hang until cancelled: it signals each request's arrival on `started` and records
    /// in `observed` that a cancellation reached it.
    static func transportThatWaitsToBeCancelled() -> (ScriptedTransport, AsyncStream<Void>, Locked<Bool>) {
        let observed = Locked<Bool>(false)
        let started = AsyncStream<Void>.makeStream()
        let transport = ScriptedTransport { _, _ in
            started.continuation.yield()
            do {
                try await Task.sleep(nanoseconds: 30_000_000_000)
            } catch {
                observed.withLock { $0 = true }
                throw error
            }
            return (200, Self.emptyPage)
        }
        return (transport, started.stream, observed)
    }

    @Test func aDoubleTappedRefreshSendsOneRequestAndADifferentPageItsOwn() async throws {
        let transport = ScriptedTransport { _, _ in
            try await Task.sleep(nanoseconds: 200_000_000)
            return (200, Self.emptyPage)
        }
        let session = Script.validSession()
        let sdk = try await transport.backend(session: session).repositories
        async let first = sdk.posts.feed(page: .first(size: 20))
        async let second = sdk.posts.feed(page: .first(size: 20))
        async let other = sdk.posts.feed(page: .first(size: 10))
        _ = try await (first, second, other)
        #expect(transport.count("GET /v1/feed") == 2)
        _ = try await sdk.posts.feed(page: .first(size: 20))
        #expect(transport.count("GET /v1/feed") == 3, "a call after the first finished is sent again")
    }

    @Test func aReadInFlightForOneUserIsNeverSharedWithTheNextUser() async throws {
        let bob = User(id: User.ID(UUID()), nickname: "bob", email: "bob@example.com", createdAt: Date(timeIntervalSince1970: 0))
        let transport = ScriptedTransport { request, _ in
            switch request.url?.path {
            case "/v1/auth/sign-out":
                return (204, Data())
            case "/v1/auth/sign-in":
                var object = try JSONSerialization.jsonObject(with: Script.tokens("access-bob")) as! [String: Any]
                object["user"] = try JSONSerialization.jsonObject(with: Script.json(bob))
                return (200, try JSONSerialization.data(withJSONObject: object))
            default:
                try await Task.sleep(nanoseconds: 300_000_000)
                return (200, Self.emptyPage)
            }
        }
        let session = Script.validSession()
        let backend = try await transport.backend(session: session)
        let sdk = backend.repositories
        let alicesRead = Task { try await sdk.diaries.entries(DiaryQuery(), page: .first(size: 20)) }
        while backend.client.callersWaiting == 0 || transport.count("GET /v1/diaries") == 0 {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        try await sdk.accounts.signOut()
        _ = try await sdk.accounts.signIn(.password(email: "bob@example.com", password: "correct horse battery"))
        _ = try await sdk.diaries.entries(DiaryQuery(), page: .first(size: 20))
        _ = try await alicesRead.value
        let reads = transport.requests.filter { $0.url?.path == "/v1/diaries" }
        #expect(reads.count == 2, "bob's read was sent for bob, not joined to alice's")
        #expect(reads.last?.value(forHTTPHeaderField: "Authorization") == "Bearer access-bob")
    }

    @Test func aReadIssuedAfterAWriteFinishedDoesNotJoinAnOlderRead() async throws {
        let post = Post(
            id: Post.ID(UUID()), author: nil, isMine: true, isAnonymous: false, title: "Hi", body: "there", tags: [], images: [],
            source: .original, day: LocalDate("2026-01-01")!, likeCount: 0, commentCount: 0, isLiked: false,
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        let transport = ScriptedTransport { request, _ in
            if request.httpMethod == "POST" { return (201, Script.json(post)) }
            try await Task.sleep(nanoseconds: 300_000_000)
            return (200, Self.emptyPage)
        }
        let session = Script.validSession()
        let sdk = try await transport.backend(session: session).repositories
        let before = Task { try await sdk.posts.feed(page: .first(size: 20)) }
        try await Task.sleep(nanoseconds: 50_000_000)
        _ = try await sdk.posts.publish(PostDraft(title: "Hi", body: "there"))
        _ = try await sdk.posts.feed(page: .first(size: 20))
        _ = try await before.value
        #expect(transport.count("GET /v1/feed") == 2)
    }

    @Test func searchesThatDifferOnlyInHowTheirQueryIsSplitAreNotJoined() {
        let one = HTTPRequest("GET", "/v1/posts/search", query: [("text", "a&tags=b")])
        let two = HTTPRequest("GET", "/v1/posts/search", query: [("text", "a"), ("tags", "b")])
        #expect(one.deduplicationKey != two.deduplicationKey)
    }

    @Test func whenEveryCallerSharingARequestIsCancelledTheRequestIsCancelled() async throws {
        let (transport, started, observed) = Self.transportThatWaitsToBeCancelled()
        let session = Script.validSession()
        let backend = try await transport.backend(session: session)
        let sdk = backend.repositories
        let first = Task { try await sdk.posts.feed(page: .first()) }
        for await _ in started { break }
        let second = Task { try await sdk.posts.feed(page: .first()) }
        while backend.client.callersWaiting < 2 { try await Task.sleep(nanoseconds: 5_000_000) }
        first.cancel()
        second.cancel()
        let clock = ContinuousClock()
        let start = clock.now
        for task in [first, second] {
            let error = await #expect(throws: DiaryError.self) { try await task.value }
            #expect(error?.code == .cancelled)
        }
        // The transport waits 30 s unless cancelled; 25 s tells the two apart even when the whole suite shares two
        // cores with the server (15 s was seen under that load).
        #expect(clock.now - start < .seconds(25), "the shared request was cancelled, not waited out")
        #expect(observed.current)
        #expect(transport.count("GET /v1/feed") == 1)
    }

    @Test func aCallerCancelledWhileAnotherStillWaitsGetsCancelledAndTheOtherTheResult() async throws {
        let release = AsyncStream<Void>.makeStream()
        let started = AsyncStream<Void>.makeStream()
        let transport = ScriptedTransport { _, _ in
            started.continuation.yield()
            for await _ in release.stream { break }
            return (200, Self.emptyPage)
        }
        let session = Script.validSession()
        let backend = try await transport.backend(session: session)
        let sdk = backend.repositories
        let first = Task { try await sdk.posts.feed(page: .first()) }
        for await _ in started.stream { break }
        let second = Task { try await sdk.posts.feed(page: .first()) }
        while backend.client.callersWaiting < 2 { try await Task.sleep(nanoseconds: 5_000_000) }
        first.cancel()
        release.continuation.yield()
        let error = await #expect(throws: DiaryError.self) { try await first.value }
        #expect(error?.code == .cancelled)
        #expect(try await second.value.items.isEmpty)
        #expect(transport.count("GET /v1/feed") == 1)
    }

    @Test func cancellingTheCallerCancelsTheRequest() async throws {
        let (transport, started, observed) = Self.transportThatWaitsToBeCancelled()
        let session = Script.validSession()
        let sdk = try await transport.backend(session: session).repositories
        let task = Task { try await sdk.posts.feed(page: .first()) }
        // Cancel once the request has reached the network, not before (a loaded machine may take a while).
        for await _ in started { break }
        task.cancel()
        let error = await #expect(throws: DiaryError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(observed.current, "the transport saw the cancellation")
    }

    @Test func everyWriteCarriesAnIdempotencyKeyThatStaysTheSameAcrossRetries() async throws {
        let transport = ScriptedTransport { request, _ in
            if request.httpMethod == "POST" && request.url?.path == "/v1/books/join" {
                return (503, Script.problem(503, "unavailable", "try later"))
            }
            return (200, Data())
        }
        let session = Script.validSession()
        let sdk = try await transport.backend(session: session, retry: .init(maximumAttempts: 3, baseDelay: 0.01)).repositories
        let error = await #expect(throws: DiaryError.self) { try await sdk.books.join(inviteCode: "ABC") }
        #expect(error?.code == .unavailable)
        #expect(error?.httpStatus == 503)
        #expect(error?.message == "try later")
        let keys = transport.requests.compactMap { $0.value(forHTTPHeaderField: "Idempotency-Key") }
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1)
    }

    @Test func requestsWithoutAnIdempotencyKeyAreNeverRetried() async throws {
        var request = HTTPRequest("POST", "/v1/posts")
        #expect(request.isIdempotent)
        request.idempotencyKey = nil
        #expect(!request.isIdempotent)
        #expect(HTTPRequest("GET", "/v1/feed").isIdempotent)
        #expect(HTTPRequest("DELETE", "/v1/posts/x").isIdempotent)
    }

    @Test func retryAfterAcceptsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.retryAfter("7", now: now) == 7)
        #expect(RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:40 GMT", now: now) == 20)
        #expect(RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
    }

    @Test func backoffUsesFullJitterUnderTheExponentialBound() {
        let policy = RetryPolicy(maximumAttempts: 5, baseDelay: 0.5, maximumDelay: 3)
        for attempt in 1...6 {
            let bound = min(3, 0.5 * pow(2, Double(attempt - 1)))
            for _ in 0..<50 {
                let wait = policy.backoff(beforeRetry: attempt)
                #expect(wait >= 0 && wait <= bound)
            }
        }
    }

    @Test func serverSentEventsAreSplitIntoChanges() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Data(": subscribed\n\nevent: change\ndata: {\"a\"".utf8)).isEmpty)
        let events = parser.feed(Data(":1}\n\n: keep-alive\n\n".utf8))
        #expect(events == [.init(name: "change", data: "{\"a\":1}")])
    }

    @Test func serverSentEventsEndLinesWithLFCROrCRLFEvenAcrossChunks() {
        var parser = ServerSentEventParser()
        var events: [ServerSentEventParser.Event] = []
        // CRLF split between chunks, a lone CR, a field without a space, one without a colon, data on two lines.
        for chunk in ["id: m1.2\r", "\nevent: open\r\ndata: {}\r\n\r", "\n", "id:m1.3\revent:change\rdata: a\rdata:b\r\r",
            "retry\n: comment\ndata\n\n"]
        {
            events += parser.feed(Data(chunk.utf8))
        }
        #expect(events == [
            .init(name: "open", data: "{}", id: "m1.2"), .init(name: "change", data: "a\nb", id: "m1.3"),
            .init(name: "message", data: ""),
        ])
    }

    @Test func anOversizedServerSentEventIsDroppedAndTheNextOneStillArrives() {
        var parser = ServerSentEventParser()
        let huge = String(repeating: "x", count: ServerSentEventParser.maximumEventBytes + 10)
        #expect(parser.feed(Data("event: change\ndata: \(huge)\n\n".utf8)).isEmpty)
        #expect(parser.feed(Data("event: change\ndata: small\n\n".utf8)) == [.init(name: "change", data: "small")])
    }

    @Test func aLongReplayInOneChunkIsSplitInOnePass() {
        var parser = ServerSentEventParser()
        let count = 20_000
        let text = (0..<count).map { "id: m1.\($0)\nevent: change\ndata: {\"n\":\($0)}\n\n" }.joined()
        let events = parser.feed(Data(text.utf8))
        #expect(events.count == count)
        #expect(events.last == .init(name: "change", data: "{\"n\":\(count - 1)}", id: "m1.\(count - 1)"))
    }

    @Test func theChangeFeedBacksOffAndGivesUpOnlyWhereItShould() {
        #expect(HTTPChangeFeed.isPermanent(400) && HTTPChangeFeed.isPermanent(404))
        #expect(!HTTPChangeFeed.isPermanent(401) && !HTTPChangeFeed.isPermanent(503) && !HTTPChangeFeed.isPermanent(429))
        for failures in 1...20 {
            let ceiling = min(30, 0.5 * pow(2, Double(min(failures, 16) - 1)))
            for _ in 0..<20 {
                let wait = HTTPChangeFeed.backoff(afterFailures: failures)
                #expect(wait >= ceiling * 0.5 && wait <= ceiling)
            }
        }
    }
}
