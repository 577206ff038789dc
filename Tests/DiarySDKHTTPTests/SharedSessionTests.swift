import Foundation
import Testing

/// Sessions that outlive a server process and are shared by every process on one database.
enum SessionFixture {
    static func signUp(_ client: TestClient, _ name: String) async throws -> (access: String, refresh: String) {
        let reply = try await client.send(
            "POST", "/v1/auth/sign-up",
            body: Data(#"{"email":"\#(name)@example.com","password":"correct horse battery","nickname":"\#(name)"}"#.utf8))
        guard reply.status == 201 else { throw ServerError("sign-up answered \(reply.status): \(reply.text)") }
        return try tokens(reply)
    }

    static func refresh(_ client: TestClient, _ token: String) async throws -> TestClient.Reply {
        try await client.send("POST", "/v1/auth/refresh", body: try JSONSerialization.data(withJSONObject: ["refreshToken": token]))
    }

    static func tokens(_ reply: TestClient.Reply) throws -> (access: String, refresh: String) {
        guard let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any],
            let access = object["accessToken"] as? String, let refresh = object["refreshToken"] as? String
        else { throw ServerError("no tokens in \(reply.text)") }
        return (access, refresh)
    }

    static func me(_ client: TestClient, _ token: String) async throws -> Int {
        try await client.send("GET", "/v1/me", token: token).status
    }
}

@Suite("Sessions across server processes on one PostgreSQL schema",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct PostgresSharedSessionTests {
    @Test func aSessionStartedOnOneServerWorksOnTheOtherAndReuseOnEitherEndsIt() async throws {
        let schema = PostgresReferenceServer.freshSchema()
        let first = try await PostgresReferenceServer.start(schema: schema)
        defer { first.stop() }
        let second = try await PostgresReferenceServer.start(schema: schema)
        defer { second.stop() }
        let a = TestClient(baseURL: first.baseURL)
        let b = TestClient(baseURL: second.baseURL)

        let signedUp = try await SessionFixture.signUp(a, "roaming")
        #expect(try await SessionFixture.me(b, signedUp.access) == 200)

        let refreshedOnB = try await SessionFixture.refresh(b, signedUp.refresh)
        #expect(refreshedOnB.status == 200, "\(refreshedOnB.text)")
        let second1 = try SessionFixture.tokens(refreshedOnB)
        #expect(try await SessionFixture.me(a, second1.access) == 200)
        // Within the grace period, the other server answers a lost refresh with the same pair.
        let replayOnA = try await SessionFixture.refresh(a, signedUp.refresh)
        #expect(replayOnA.status == 200, "\(replayOnA.text)")
        #expect(try SessionFixture.tokens(replayOnA).refresh == second1.refresh)

        // Once the new refresh token is used on B, the old one presented on A is reuse: the session ends everywhere.
        let third = try SessionFixture.tokens(try await SessionFixture.refresh(b, second1.refresh))
        #expect(try await SessionFixture.refresh(a, signedUp.refresh).status == 401)
        #expect(try await SessionFixture.me(b, third.access) == 401)
        #expect(try await SessionFixture.me(a, third.access) == 401)
        #expect(try await SessionFixture.refresh(b, third.refresh).status == 401)
    }

    @Test func concurrentRefreshesOnTwoServersRotateOnce() async throws {
        let schema = PostgresReferenceServer.freshSchema()
        let first = try await PostgresReferenceServer.start(schema: schema)
        defer { first.stop() }
        let second = try await PostgresReferenceServer.start(schema: schema)
        defer { second.stop() }
        let clients = [TestClient(baseURL: first.baseURL), TestClient(baseURL: second.baseURL)]
        let signedUp = try await SessionFixture.signUp(clients[0], "racing")
        let replies = try await withThrowingTaskGroup(of: TestClient.Reply.self) { group in
            for index in 0..<8 {
                group.addTask { try await SessionFixture.refresh(clients[index % 2], signedUp.refresh) }
            }
            return try await group.reduce(into: [TestClient.Reply]()) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.map(\.text))")
        let pairs = try replies.map(SessionFixture.tokens)
        #expect(Set(pairs.map(\.refresh)).count == 1)
        #expect(try await SessionFixture.me(clients[1], pairs[0].access) == 200)
    }

    @Test func anAccessTokenStillWorksAfterTheServerRestarts() async throws {
        let schema = PostgresReferenceServer.freshSchema()
        let before = try await PostgresReferenceServer.start(schema: schema)
        let signedUp = try await SessionFixture.signUp(TestClient(baseURL: before.baseURL), "restarted")
        try await before.stopAndWait()
        let after = try await PostgresReferenceServer.start(schema: schema)
        defer { after.stop() }
        let client = TestClient(baseURL: after.baseURL)
        #expect(try await SessionFixture.me(client, signedUp.access) == 200)
        #expect(try await SessionFixture.refresh(client, signedUp.refresh).status == 200)
    }
}

@Suite("Sessions across a restart on the file store")
struct FileStoreSessionRestartTests {
    @Test func anAccessTokenStillWorksAfterTheServerRestartsOnTheSameDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try await ReferenceServer.start(extraArguments: [], dataDirectory: directory)
        let client = TestClient(baseURL: before.baseURL)
        let signedUp = try await SessionFixture.signUp(client, "filed")
        let signedOut = try await SessionFixture.signUp(client, "leaving")
        #expect(try await client.send("POST", "/v1/auth/sign-out", token: signedOut.access).status == 204)
        try await before.stopAndWait()

        let after = try await ReferenceServer.start(extraArguments: [], dataDirectory: directory)
        defer { after.stop() }
        let again = TestClient(baseURL: after.baseURL)
        #expect(try await SessionFixture.me(again, signedUp.access) == 200)
        // What ended before the restart stays ended.
        #expect(try await SessionFixture.me(again, signedOut.access) == 401)
        #expect(try await SessionFixture.refresh(again, signedUp.refresh).status == 200)
    }

    @Test func aDamagedSessionsFileStopsTheServerAtStartUp() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-damaged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try await ReferenceServer.start(extraArguments: [], dataDirectory: directory)
        _ = try await SessionFixture.signUp(TestClient(baseURL: before.baseURL), "damaged")
        try await before.stopAndWait()
        try Data("not json".utf8).write(to: directory.appendingPathComponent("server-sessions.json"))
        let refused = await #expect(throws: ServerError.self) {
            let server = try await ReferenceServer.start(extraArguments: [], dataDirectory: directory)
            server.stop()
        }
        #expect(refused?.description.contains("exited with status 1") == true, "\(String(describing: refused))")
    }
}
