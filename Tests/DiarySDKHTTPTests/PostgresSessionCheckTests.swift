import DiarySDK
import Foundation
import Testing

/// On PostgreSQL a request's session is checked with the first read of its first storage transaction rather than
/// before it (docs/Deploying.md, §3). Whatever the route, a session ended on one server must
/// still be refused at once on the other, before any rule speaks and with nothing written.
@Suite("A session ended on one server is refused on the other by every kind of route",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct PostgresSessionCheckTests {
    static func signUp(_ client: TestClient, _ name: String) async throws -> String {
        let reply = try await client.send(
            "POST", "/v1/auth/sign-up",
            body: Data(#"{"email":"\#(name)@example.com","password":"correct horse battery","nickname":"\#(name)"}"#.utf8))
        #expect(reply.status == 201, "\(reply.text)")
        return try PostgresSharedDatabaseTests.accessToken(reply)
    }

    static func post(_ client: TestClient, _ token: String, title: String) async throws -> String {
        let reply = try await client.send(
            "POST", "/v1/posts", body: Data(#"{"title":"\#(title)","body":"text","tags":[],"images":[],"isAnonymous":false}"#.utf8),
            token: token)
        #expect(reply.status == 201, "\(reply.text)")
        let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        return try #require(object?["id"] as? String)
    }

    @Test func aSignedOutTokenIsRefusedBeforeAnyRuleAndChangesNothing() async throws {
        try await TwoServers.with { pair in
            let one = TestClient(baseURL: pair.servers[0].baseURL)
            let two = TestClient(baseURL: pair.servers[1].baseURL)
            let alice = try await Self.signUp(one, "alice")
            let bob = try await Self.signUp(two, "bob")
            let bobs = try await Self.post(two, bob, title: "bob's")
            let alices = try await Self.post(one, alice, title: "alice's")
            let signIn = try await two.send(
                "POST", "/v1/auth/sign-in",
                body: Data(#"{"type":"password","email":"alice@example.com","password":"correct horse battery"}"#.utf8))
            let aliceAgain = try PostgresSharedDatabaseTests.accessToken(signIn)
            let signOut = try await one.send("POST", "/v1/auth/sign-out", token: alice)
            #expect(signOut.status == 204, "\(signOut.text)")

            let draft = Data(#"{"title":"after sign-out","body":"text","tags":[],"images":[],"isAnonymous":false}"#.utf8)
            let requests: [(String, String, Data?, [String: String])] = [
                ("GET", "/v1/feed", nil, [:]),
                ("GET", "/v1/posts/\(bobs)", nil, [:]),
                // The engine would answer 404 for these: the session speaks first.
                ("GET", "/v1/users/\(UUID().uuidString.lowercased())/posts", nil, [:]),
                ("GET", "/v1/posts/\(UUID().uuidString.lowercased())", nil, [:]),
                ("POST", "/v1/posts", draft, [:]),
                ("POST", "/v1/posts", draft, ["Idempotency-Key": "after-sign-out"]),
                // Someone else's post (403) and a blank title (400) would break a rule.
                ("PATCH", "/v1/posts/\(bobs)", Data(#"{"title":"mine now"}"#.utf8), [:]),
                ("PATCH", "/v1/posts/\(alices)", Data(#"{"title":"   "}"#.utf8), [:]),
                ("PUT", "/v1/posts/\(bobs)/like", nil, [:]),
                ("DELETE", "/v1/posts/\(alices)", nil, [:]),
                // A body the route refuses (415) and the change stream, checked before it starts anything.
                ("POST", "/v1/posts", Data("plain text".utf8), ["Content-Type": "text/plain"]),
                ("GET", "/v1/changes", nil, [:]),
            ]
            for (method, path, body, headers) in requests {
                let reply = try await two.send(method, path, body: body, token: alice, headers: headers)
                #expect(reply.status == 401, "\(method) \(path): \(reply.status) \(reply.text)")
                #expect(reply.text.contains("the session has ended"), "\(method) \(path): \(reply.text)")
            }

            // Nothing was written: alice's one post as it was, bob's post unliked and unchanged.
            let mine = try await one.send("GET", "/v1/me/posts", token: aliceAgain)
            let items = try #require((try JSONSerialization.jsonObject(with: mine.body) as? [String: Any])?["items"] as? [[String: Any]])
            #expect(items.map { $0["title"] as? String } == ["alice's"], "\(mine.text)")
            let theirs = try await one.send("GET", "/v1/posts/\(bobs)", token: aliceAgain)
            let post = try #require(try JSONSerialization.jsonObject(with: theirs.body) as? [String: Any])
            #expect(post["title"] as? String == "bob's")
            #expect(post["likeCount"] as? Int == 0, "\(theirs.text)")
        }
    }

    @Test func anAccessTokenDeclaredExpiredIsRefusedAsExpiredByAReadAndAWrite() async throws {
        try await TwoServers.with { pair in
            let one = TestClient(baseURL: pair.servers[0].baseURL)
            let two = TestClient(baseURL: pair.servers[1].baseURL)
            let carol = try await Self.signUp(one, "carol")
            #expect(try await two.send("GET", "/v1/feed", token: carol).status == 200)
            let expire = try await one.send("POST", "/v1/_test/expire-access-tokens")
            #expect(expire.status == 204 || expire.status == 200, "\(expire.status) \(expire.text)")
            for (method, path) in [("GET", "/v1/feed"), ("POST", "/v1/posts")] {
                let body = method == "POST" ? Data(#"{"title":"t","body":"b","tags":[],"images":[],"isAnonymous":false}"#.utf8) : nil
                let reply = try await two.send(method, path, body: body, token: carol)
                #expect(reply.status == 401, "\(method) \(path): \(reply.text)")
                #expect(reply.text.contains("the access token has expired"), "\(method) \(path): \(reply.text)")
            }
        }
    }
}
