import DiarySDK
import DiarySDKConformance
import DiarySDKHTTP
import Foundation
import Testing

/// The reference server on PostgreSQL (`DIARY_DATABASE_URL`), for the tests that need it.
///
/// The database is `DIARY_TEST_DATABASE_URL` (`eval "$(scripts/postgres.sh start)"` sets it). Without it the tests
/// are skipped, except when `CI=true`: then they run and fail, so CI cannot pass by skipping.
enum PostgresReferenceServer {
    static let databaseURL = ProcessInfo.processInfo.environment["DIARY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let shouldRun = databaseURL != nil || ProcessInfo.processInfo.environment["CI"] == "true"

    /// A schema name no other server process uses.
    static func freshSchema() -> String {
        "http_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Starts a server whose main world lives in `schema` of the test database.
    static func start(
        schema: String = freshSchema(), extraArguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> ReferenceServer {
        guard let databaseURL else {
            throw ServerError("CI=true but DIARY_TEST_DATABASE_URL is not set: the PostgreSQL HTTP tests cannot run")
        }
        return try await ReferenceServer.start(
            extraArguments: extraArguments,
            environment: ["DIARY_DATABASE_URL": databaseURL, "DIARY_DATABASE_SCHEMA": schema,
                          "DIARY_DATABASE_MAX_CONNECTIONS": "4"].merging(environment) { _, added in added })
    }

    /// The server the conformance suite shares (each check in a world, so a schema, of its own).
    static func shared() async throws -> ReferenceServer {
        try await starting.value
    }

    private static let starting = Task { try await start(extraArguments: ["--auth-rate-limit", "100"] + contractLogArguments) }

    /// `--contract-log DIARY_CONTRACT_LOG.postgres` when `DIARY_CONTRACT_LOG` is set: a file of its own (two processes
    /// do not append to one file), which scripts/test.sh validates against docs/openapi.yaml too.
    private static var contractLogArguments: [String] {
        guard let path = ProcessInfo.processInfo.environment["DIARY_CONTRACT_LOG"], !path.isEmpty else { return [] }
        return ["--contract-log", path + ".postgres"]
    }

    /// Test worlds open at once: each holds up to two connections on the server, and Swift Testing starts every
    /// check at once, so this keeps the run under the test cluster's `max_connections`. Each world's schema is made
    /// by a migration with a table per row kind, index and listing; with 40 made at once on two cores, requests of
    /// the worlds already open waited past their 30 s timeout.
    static let worlds = WorldBudget(limit: 20)
}

/// A counting semaphore of open test worlds, or other PostgreSQL work weighed in worlds: what waits, waits in order.
actor WorldBudget {
    private var available: Int
    private var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// The budget's size.
    let limit: Int

    init(limit: Int) {
        available = limit
        self.limit = limit
    }

    /// Waits until `count` (at most ``limit``) are free and takes them.
    func acquire(_ count: Int = 1) async {
        let count = min(count, limit)
        if available >= count, waiting.isEmpty {
            available -= count
            return
        }
        await withCheckedContinuation { waiting.append((count, $0)) }
    }

    /// Returns `count` and wakes whoever now fits, in order.
    func release(_ count: Int = 1) {
        available += min(count, limit)
        while let first = waiting.first, first.count <= available {
            waiting.removeFirst()
            available -= first.count
            first.continuation.resume()
        }
    }

}

extension WorldBudget {
    /// Runs `body` holding the whole budget: no test world of the PostgreSQL suites is open meanwhile, for tests
    /// that load the machine on their own (several servers, many concurrent writes).
    nonisolated func exclusively<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        await acquire(limit)
        do {
            let result = try await body()
            await release(limit)
            return result
        } catch {
            await release(limit)
            throw error
        }
    }
}

struct PostgresHTTPHarness: ConformanceHarness {
    func makeWorld() async throws -> any ConformanceWorld {
        let server = try await PostgresReferenceServer.shared()
        await PostgresReferenceServer.worlds.acquire()
        do {
            return PostgresHTTPWorld(world: HTTPWorld(control: try await TestClient(baseURL: server.baseURL).newWorld(recorded: true)))
        } catch {
            await PostgresReferenceServer.worlds.release()
            throw error
        }
    }
}

/// A world on the PostgreSQL server: its schema is dropped, and its place in the budget freed, at shutdown.
struct PostgresHTTPWorld: ConformanceWorld {
    let world: HTTPWorld

    func makeDevice() async throws -> DiaryRepositories { try await world.makeDevice() }

    func setNow(_ date: Date) async throws { try await world.setNow(date) }

    func shutdown() async throws {
        defer { Task { await PostgresReferenceServer.worlds.release() } }
        try await world.shutdown()
    }
}

@Suite("HTTP backend conformance (against the reference server on PostgreSQL)",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct PostgresHTTPConformanceTests {
    @Test(arguments: ConformanceSuite.checks)
    func conforms(_ check: ConformanceCheck) async throws {
        try await check.run(on: PostgresHTTPHarness())
    }

    @Test func theServerIsReadyAndHealthyOnPostgreSQL() async throws {
        let client = TestClient(baseURL: try await PostgresReferenceServer.shared().baseURL)
        let health = try await client.send("GET", "/health")
        #expect(health.status == 200)
        #expect(health.text == #"{"status":"ok"}"#)
        let ready = try await client.send("GET", "/ready")
        #expect(ready.status == 200)
        #expect(ready.text == #"{"status":"ready"}"#)
    }
}

/// Two server processes on one database and schema, as behind a load balancer: what one writes, the other reads.
@Suite("Two reference servers on one PostgreSQL schema",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct PostgresSharedDatabaseTests {
    @Test func aWriteThroughOneServerIsReadThroughTheOther() async throws {
        let schema = PostgresReferenceServer.freshSchema()
        let first = try await PostgresReferenceServer.start(schema: schema)
        defer { first.stop() }
        let second = try await PostgresReferenceServer.start(schema: schema)
        defer { second.stop() }
        let one = TestClient(baseURL: first.baseURL)
        let two = TestClient(baseURL: second.baseURL)

        let signUp = try await one.send(
            "POST", "/v1/auth/sign-up",
            body: Data(#"{"email":"shared@example.com","password":"correct horse battery","nickname":"shared"}"#.utf8))
        #expect(signUp.status == 201, "\(signUp.text)")
        // The account signs in on the second server too (a session of its own there).
        let signIn = try await two.send(
            "POST", "/v1/auth/sign-in", body: Data(#"{"type":"password","email":"shared@example.com","password":"correct horse battery"}"#.utf8))
        #expect(signIn.status == 200, "\(signIn.text)")
        let tokenOne = try Self.accessToken(signUp)
        let tokenTwo = try Self.accessToken(signIn)

        // The same email cannot sign up again through the other server: one set of accounts.
        let again = try await two.send(
            "POST", "/v1/auth/sign-up",
            body: Data(#"{"email":"shared@example.com","password":"another horse battery","nickname":"other"}"#.utf8))
        #expect(again.status == 409, "\(again.text)")

        var postIDs: [String] = []
        for index in 0..<4 {
            let writer = index.isMultiple(of: 2) ? (two, tokenTwo) : (one, tokenOne)
            let reader = index.isMultiple(of: 2) ? (one, tokenOne) : (two, tokenTwo)
            let published = try await writer.0.send(
                "POST", "/v1/posts",
                body: Data(#"{"title":"post \#(index)","body":"written on one server","tags":[],"images":[],"isAnonymous":false}"#.utf8),
                token: writer.1)
            #expect(published.status == 201, "\(published.text)")
            let id = try #require((try JSONSerialization.jsonObject(with: published.body) as? [String: Any])?["id"] as? String)
            postIDs.append(id)
            let read = try await reader.0.send("GET", "/v1/posts/\(id)", token: reader.1)
            #expect(read.status == 200, "\(read.text)")
            #expect(read.text.contains("post \(index)"))
        }
        #expect(Set(postIDs).count == 4)
        for server in [one, two] {
            #expect(try await server.send("GET", "/ready").status == 200)
        }
    }

    static func accessToken(_ reply: TestClient.Reply) throws -> String {
        guard let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any],
            let token = object["accessToken"] as? String
        else { throw ServerError("no access token in \(reply.text)") }
        return token
    }
}
