import DiarySDK
import DiarySDKConformance
@testable import DiarySDKHTTP
import Foundation
import Testing

/// The whole conformance suite through two server processes on one PostgreSQL database, every device's requests
/// alternating between them one by one: a world is created on the first server and opened by the second on its
/// first request (test mode keeps the worlds of one database in a shared table).
enum TwoServerPair {
    /// The pair the suite shares.
    static func shared() async throws -> TwoServers {
        try await starting.value
    }

    private static let starting = Task { try await TwoServers.start() }

    /// The budget the one-server PostgreSQL suite draws on, shared: a world here weighs ``worldWeight`` worlds
    /// there, so both suites running side by side load the machine no more than that one did alone (on a loaded
    /// two-core machine, more made both suites' requests time out).
    static var worlds: WorldBudget { PostgresReferenceServer.worlds }
    static let worldWeight = 10
}

struct TwoServerHarness: ConformanceHarness {
    func makeWorld() async throws -> any ConformanceWorld {
        let pair = try await TwoServerPair.shared()
        await TwoServerPair.worlds.acquire(TwoServerPair.worldWeight)
        do {
            let created = try await TestClient(baseURL: pair.servers[0].baseURL).newWorld()
            return TwoServerWorld(pair: pair, world: created.world ?? "")
        } catch {
            await TwoServerPair.worlds.release(TwoServerPair.worldWeight)
            throw error
        }
    }
}

/// One world served by both servers.
struct TwoServerWorld: ConformanceWorld {
    let pair: TwoServers
    let world: String

    /// A client of the world on each server.
    var controls: [TestClient] { pair.servers.map { TestClient(baseURL: $0.baseURL, world: world) } }

    func makeDevice() async throws -> DiaryRepositories {
        pair.alternatingDevice(headers: ["X-Diary-World": world])
    }

    /// Each server keeps its own data clock for the world: both are set.
    func setNow(_ date: Date) async throws {
        struct Clock: Encodable { var now: Date }
        for control in controls {
            let reply = try await control.sendJSON("POST", "/v1/_test/clock", Clock(now: date))
            guard reply.status == 204 else { throw ServerError("setting the clock answered \(reply.status): \(reply.text)") }
        }
    }

    /// The second server closes its copy first; the first drops the schema.
    func shutdown() async throws {
        defer { Task { await TwoServerPair.worlds.release(TwoServerPair.worldWeight) } }
        for control in controls.reversed() {
            try await control.send("DELETE", "/v1/_test/worlds/\(world)")
        }
    }
}

@Suite("HTTP backend conformance, alternating between two reference servers on one PostgreSQL database",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct TwoServerConformanceTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: TwoServerHarness())
    }

    @Test func aWorldCreatedOnOneServerIsServedByTheOtherAndGoneFromBothOnceDeleted() async throws {
        let pair = try await TwoServerPair.shared()
        let created = try await TestClient(baseURL: pair.servers[0].baseURL).newWorld()
        let world = try #require(created.world)
        let there = TestClient(baseURL: pair.servers[1].baseURL, world: world)

        // Signed up through the first server, the account signs in through the second, in the same world only.
        let signedUp = try await SessionFixture.signUp(created, "traveller")
        #expect(try await SessionFixture.me(there, signedUp.access) == 200)
        let signIn = try await there.send(
            "POST", "/v1/auth/sign-in",
            body: Data(#"{"type":"password","email":"traveller@example.com","password":"correct horse battery"}"#.utf8))
        #expect(signIn.status == 200, "\(signIn.text)")
        let mainOfSecond = TestClient(baseURL: pair.servers[1].baseURL)
        #expect(try await mainOfSecond.send(
            "POST", "/v1/auth/sign-in",
            body: Data(#"{"type":"password","email":"traveller@example.com","password":"correct horse battery"}"#.utf8)).status == 401)

        // A world no server created is unknown to both: no schema is made for it.
        let unknown = TestClient(baseURL: pair.servers[1].baseURL, world: UUID().uuidString.lowercased())
        #expect(try await unknown.send("GET", "/v1/_test/stats").status == 404)

        // Each alternating device's requests really went to both servers.
        let transport = AlternatingTransport(baseURLs: pair.servers.map(\.baseURL))
        let sdk = HTTPBackend(
            configuration: .init(baseURL: pair.servers[0].baseURL, additionalHeaders: ["X-Diary-World": world]),
            transport: transport
        ).repositories
        _ = try await sdk.accounts.signIn(.password(email: "traveller@example.com", password: "correct horse battery"))
        let post = try await sdk.posts.publish(PostDraft(title: "Both", body: "ways"))
        #expect(try await sdk.posts.post(post.id).title == "Both")
        #expect(transport.sent.current.allSatisfy { $0 >= 1 }, "\(transport.sent.current)")

        for control in [there, created] { try await control.send("DELETE", "/v1/_test/worlds/\(world)") }
        #expect(try await there.send("GET", "/v1/_test/stats").status == 404)
        #expect(try await created.send("GET", "/v1/_test/stats").status == 404)
    }
}
