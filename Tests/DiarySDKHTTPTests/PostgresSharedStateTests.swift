import DiarySDK
import Foundation
import Testing

/// Two server processes on one database and schema share what the server keeps besides the data: a write retried
/// with the same `Idempotency-Key` on the other process is answered once, and a client's sign-in budget is one
/// budget, not one per process.
@Suite("Two reference servers on one PostgreSQL schema share idempotency and the sign-in rate limit",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct PostgresSharedStateTests {
    @Test func theSameWriteSentToBothServersAtOnceCreatesOnePost() async throws {
        let pair = try await TwoServers.start()
        defer { pair.stop() }
        let one = TestClient(baseURL: pair.servers[0].baseURL)
        let two = TestClient(baseURL: pair.servers[1].baseURL)
        let signUp = try await one.send(
            "POST", "/v1/auth/sign-up",
            body: Data(#"{"email":"retry@example.com","password":"correct horse battery","nickname":"retry"}"#.utf8))
        #expect(signUp.status == 201, "\(signUp.text)")
        let signIn = try await two.send(
            "POST", "/v1/auth/sign-in",
            body: Data(#"{"type":"password","email":"retry@example.com","password":"correct horse battery"}"#.utf8))
        #expect(signIn.status == 200, "\(signIn.text)")
        let tokenOne = try PostgresSharedDatabaseTests.accessToken(signUp)
        let tokenTwo = try PostgresSharedDatabaseTests.accessToken(signIn)

        let rounds = 3
        for round in 0..<rounds {
            let key = "retry-\(round)-\(UUID().uuidString)"
            let body = Data(#"{"title":"retried \#(round)","body":"sent twice","tags":[],"images":[],"isAnonymous":false}"#.utf8)
            async let fromOne = one.send("POST", "/v1/posts", body: body, token: tokenOne, headers: ["Idempotency-Key": key])
            async let fromTwo = two.send("POST", "/v1/posts", body: body, token: tokenTwo, headers: ["Idempotency-Key": key])
            let (a, b) = try await (fromOne, fromTwo)
            #expect(a.status == 201, "\(a.text)")
            #expect(b.status == 201, "\(b.text)")
            #expect(a.body == b.body, "both servers answer the first attempt's post")
            let replays = [a, b].filter { $0.headers["idempotency-replayed"] == "true" }.count
            #expect(replays == 1, "one answer ran the write, the other replayed it: \(a.headers) \(b.headers)")

            // The same key for another request is refused on either server.
            let other = Data(#"{"title":"another","body":"different","tags":[],"images":[],"isAnonymous":false}"#.utf8)
            let mismatch = try await (round.isMultiple(of: 2) ? two : one).send(
                "POST", "/v1/posts", body: other, token: round.isMultiple(of: 2) ? tokenTwo : tokenOne,
                headers: ["Idempotency-Key": key])
            #expect(mismatch.status == 422, "\(mismatch.status) \(mismatch.text)")
        }
        let mine = try await one.send("GET", "/v1/me/posts", token: tokenOne)
        #expect(mine.status == 200, "\(mine.text)")
        let items = try #require((try JSONSerialization.jsonObject(with: mine.body) as? [String: Any])?["items"] as? [Any])
        #expect(items.count == rounds, "one post per key: \(mine.text)")
    }

    @Test func signInAttemptsSplitOverBothServersMeetOneSharedBudget() async throws {
        // After TwoServers' own `--auth-rate-limit 0`, so these win.
        let pair = try await TwoServers.start(extraArguments: ["--auth-rate-limit", "4", "--auth-rate-period", "3600"])
        defer { pair.stop() }
        let servers = pair.servers.map { TestClient(baseURL: $0.baseURL) }
        let body = Data(#"{"type":"password","email":"nobody@example.com","password":"wrong password"}"#.utf8)
        var statuses: [Int] = []
        for attempt in 0..<8 {
            let reply = try await servers[attempt % 2].send("POST", "/v1/auth/sign-in", body: body)
            statuses.append(reply.status)
            if reply.status == 429 {
                #expect(reply.headers["content-type"] == "application/problem+json")
                #expect(Int(reply.headers["retry-after"] ?? "").map { $0 >= 1 } == true, "Retry-After: \(reply.headers)")
            }
        }
        // Each server saw four attempts: with a budget per process none would be refused.
        #expect(statuses == [401, 401, 401, 401, 429, 429, 429, 429], "\(statuses)")
    }
}
