import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an operator sees of the reference server (docs/Deploying.md): the request log, the drain on SIGTERM and the
/// rotation of the token signing key, each on a server process of its own.
enum OperationsFixture {
    /// Waits until the server's output has a line containing every one of `parts` (the log is written as requests
    /// finish), and returns those lines.
    static func lines(of server: ReferenceServer, containing parts: [String], timeout: TimeInterval = 10) async throws
        -> [Substring]
    {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = server.log.split(separator: "\n").filter { line in parts.allSatisfy { line.contains($0) } }
            if !lines.isEmpty || Date() > deadline { return lines }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Waits for the server process to exit, and returns its status (nil when it did not exit within `timeout`).
    static func exitStatus(of server: ReferenceServer, within timeout: TimeInterval) async throws -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while server.exitStatus == nil, Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return server.exitStatus
    }
}

@Suite("Reference server: request log")
struct ServerRequestLogTests {
    @Test func eachRequestIsOneLineWithTheRequestIDTheResponseEchoes() async throws {
        let server = try await ReferenceServer.start(extraArguments: [])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        let reply = try await client.send(
            "GET", "/health?token=query-secret-123", headers: ["X-Request-ID": "probe-1", "Authorization": "Bearer header-secret-456"])
        #expect(reply.status == 200)
        #expect(reply.headers["x-request-id"] == "probe-1")
        let lines = try await OperationsFixture.lines(of: server, containing: ["request_id=probe-1"])
        #expect(lines.count == 1, "\(lines)")
        let line = try #require(lines.first)
        for part in [" info diary.http: request ", "method=GET", "route=/health", "status=200", "duration_ms="] {
            #expect(line.contains(part), "\(line) has \(part)")
        }
        #expect(!server.log.contains("query-secret-123"))
        #expect(!server.log.contains("header-secret-456"))
        #expect(!server.log.contains(ReferenceServer.jwtSecret))
    }

    @Test func aRequestWithoutASaneIDGetsANewOneInTheLogAndTheHeader() async throws {
        let server = try await ReferenceServer.start(extraArguments: [])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        for incoming in [nil, "not sane!"] {
            let reply = try await client.send(
                "GET", "/v1/diaries/00000000-0000-0000-0000-000000000001",
                headers: incoming.map { ["X-Request-ID": $0] } ?? [:])
            #expect(reply.status == 401)
            let id = try #require(reply.headers["x-request-id"])
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
            let lines = try await OperationsFixture.lines(of: server, containing: ["request_id=\(id)"])
            #expect(lines.count == 1, "\(lines)")
            // The route template, never the id in the path.
            #expect(lines.first?.contains("route=/v1/diaries/{diaryID} status=401") == true, "\(lines)")
        }
    }

    @Test func theCauseOfAServerFailureIsLoggedWithTheRequestIDAndNeverSent() async throws {
        let server = try await ReferenceServer.start(extraArguments: [])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        try await client.injectFaults([["method": "GET", "path": "/health", "action": "fail", "times": 1]])
        let reply = try await client.send("GET", "/health", headers: ["X-Request-ID": "failing-1"])
        #expect(reply.status == 500)
        #expect(reply.headers["x-request-id"] == "failing-1")
        #expect(!reply.text.contains("injected internal failure"), "\(reply.text)")
        #expect(reply.text.contains("the server failed to answer this request"), "\(reply.text)")

        let causes = try await OperationsFixture.lines(of: server, containing: ["request_id=failing-1", "server failure"])
        #expect(causes.count == 1, "\(server.log)")
        #expect(causes.first?.contains(" error diary.http: ") == true, "\(causes)")
        #expect(causes.first?.contains("cause=\"injected internal failure (fault rule 'fail')\"") == true, "\(causes)")
        let requests = try await OperationsFixture.lines(
            of: server, containing: ["diary.http: request ", "request_id=failing-1", "status=500"])
        #expect(requests.count == 1, "\(server.log)")
    }

    @Test func theLogLevelHidesRequestLinesBelowIt() async throws {
        // `notice` still shows the start-up line the test reads the port from.
        let server = try await ReferenceServer.start(extraArguments: [], environment: ["DIARY_LOG_LEVEL": "notice"])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        try await client.injectFaults([["method": "GET", "path": "/health", "action": "fail", "times": 1]])
        #expect(try await client.send("GET", "/health", headers: ["X-Request-ID": "quiet-1"]).status == 500)
        #expect(try await client.send("GET", "/health", headers: ["X-Request-ID": "quiet-2"]).status == 200)
        // The failure's cause is an error, so it shows; the request lines are info, so they do not.
        #expect(try await OperationsFixture.lines(of: server, containing: ["request_id=quiet-1", "server failure"]).count == 1)
        #expect(!server.log.contains("diary.http: request "))
    }
}

@Suite("Reference server: graceful shutdown")
struct GracefulShutdownTests {
    @Test func sigtermLetsARequestInFlightFinishThenExitsZero() async throws {
        let server = try await ReferenceServer.start(extraArguments: [], environment: ["DIARY_DRAIN_SECONDS": "10"])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        try await client.injectFaults([["method": "GET", "path": "/health", "action": "delay", "delay": 2, "times": 1]])
        let slow = Task { try await client.send("GET", "/health", headers: ["X-Request-ID": "draining-1"]) }
        try await Task.sleep(nanoseconds: 700_000_000)
        let signalled = Date()
        server.stop()
        let reply = try await slow.value
        #expect(reply.status == 200)
        #expect(reply.headers["x-request-id"] == "draining-1")
        let status = try await OperationsFixture.exitStatus(of: server, within: 10)
        #expect(status == 0)
        #expect(Date().timeIntervalSince(signalled) < 10)
        #expect(server.log.contains("shutting down"))
        #expect(server.log.contains(" stopped"))
        // Stopped means stopped: nothing answers any more.
        await #expect(throws: (any Error).self) { try await client.send("GET", "/health") }
    }

    @Test func aRequestLongerThanTheDrainTimeDoesNotHoldTheServer() async throws {
        let server = try await ReferenceServer.start(extraArguments: [], environment: ["DIARY_DRAIN_SECONDS": "1"])
        defer { server.stop() }
        let client = TestClient(baseURL: server.baseURL)
        try await client.injectFaults([["method": "GET", "path": "/health", "action": "delay", "delay": 30, "times": 1]])
        let slow = Task { try? await client.send("GET", "/health") }
        try await Task.sleep(nanoseconds: 500_000_000)
        let signalled = Date()
        server.stop()
        let status = try await OperationsFixture.exitStatus(of: server, within: 15)
        #expect(status == 0)
        // One drain second, then at most five for cancellation.
        #expect(Date().timeIntervalSince(signalled) < 8)
        slow.cancel()
    }
}

@Suite("Reference server: signing-key rotation")
struct ServerKeyRotationTests {
    /// The `kid` in a token's header.
    static func keyID(_ token: String) throws -> String? {
        var part = String(try #require(token.split(separator: ".").first))
        part = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        let data = try #require(Data(base64Encoded: part))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["kid"] as? String
    }

    @Test func rotatingSignsNobodyOutAndRetiringAKeyEndsWhatItSigned() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = directory.appendingPathComponent("data")
        let keys = directory.appendingPathComponent("jwt-keys")
        let secretA = "secret-a-\(UUID().uuidString)"
        let secretB = "secret-b-\(UUID().uuidString)"
        func start(_ lines: String) async throws -> ReferenceServer {
            try Data(lines.utf8).write(to: keys)
            return try await ReferenceServer.start(
                extraArguments: [], environment: ["DIARY_JWT_KEYS_FILE": keys.path], dataDirectory: data)
        }

        let first = try await start("a \(secretA)\n")
        let refreshed = try await SessionFixture.signUp(TestClient(baseURL: first.baseURL), "rotating")
        let untouched = try await SessionFixture.signUp(TestClient(baseURL: first.baseURL), "resting")
        #expect(try Self.keyID(refreshed.access) == "a")
        try await first.stopAndWait()

        let second = try await start("b \(secretB)\na \(secretA)\n")
        let client = TestClient(baseURL: second.baseURL)
        #expect(try await SessionFixture.me(client, refreshed.access) == 200)
        #expect(try await SessionFixture.me(client, untouched.access) == 200)
        let rotation = try await SessionFixture.refresh(client, refreshed.refresh)
        #expect(rotation.status == 200, "\(rotation.text)")
        let renewed = try SessionFixture.tokens(rotation)
        #expect(try Self.keyID(renewed.access) == "b")
        #expect(try Self.keyID(renewed.refresh) == "b")
        #expect(!second.log.contains(secretA) && !second.log.contains(secretB))
        try await second.stopAndWait()

        let third = try await start("b \(secretB)\n")
        defer { third.stop() }
        let later = TestClient(baseURL: third.baseURL)
        #expect(try await SessionFixture.me(later, renewed.access) == 200)
        let refused = try await later.send("GET", "/v1/me", token: untouched.access)
        #expect(refused.status == 401)
        #expect(refused.headers["content-type"] == "application/problem+json")
        #expect(refused.text.contains("\"code\":\"unauthenticated\""), "\(refused.text)")
        #expect(try await SessionFixture.refresh(later, untouched.refresh).status == 401)
    }
}

@Suite("Reference server: metrics")
struct ServerMetricsTests {
    /// The metrics endpoint's URL, read from the start-up line `metrics on http://127.0.0.1:PORT/metrics`.
    static func metricsURL(of server: ReferenceServer) async throws -> URL {
        let line = try #require(try await OperationsFixture.lines(of: server, containing: ["metrics on http://"]).first)
        let address = try #require(line.split(separator: " ").last)
        return try #require(URL(string: String(address)))
    }

    /// The value of the sample whose name is `name` and whose labels include every one of `labels`.
    static func sample(_ text: String, _ name: String, _ labels: [String: String]) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") || line.hasPrefix(name + " ") {
            let pairs = labels.map { "\($0.key)=\"\($0.value)\"" }
            guard pairs.allSatisfy({ line.contains($0) }), let value = line.split(separator: " ").last else { continue }
            return Double(value)
        }
        return nil
    }

    static func scrape(_ url: URL) async throws -> (status: Int, text: String, contentType: String?) {
        let (data, response) = try await URLSession.shared.data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "Content-Type"))
    }

    @Test func requestsAreCountedAndTimedByRouteAndStatusClassOnTheMetricsPortOnly() async throws {
        let server = try await ReferenceServer.start(extraArguments: [], environment: ["DIARY_METRICS_PORT": "0"])
        defer { server.stop() }
        let metrics = try await Self.metricsURL(of: server)
        #expect(metrics.port != server.baseURL.port)
        let client = TestClient(baseURL: server.baseURL)
        // ReferenceServer.start asked /health once already.
        for _ in 0..<3 { #expect(try await client.send("GET", "/health").status == 200) }
        for id in ["00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"] {
            #expect(try await client.send("GET", "/v1/diaries/\(id)").status == 401)
        }
        try await client.injectFaults([["method": "GET", "path": "/health", "action": "fail", "times": 1]])
        #expect(try await client.send("GET", "/health").status == 500)
        #expect(try await client.send("GET", "/no/such/route").status == 404)

        let scraped = try await Self.scrape(metrics)
        #expect(scraped.status == 200)
        #expect(scraped.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = scraped.text
        let requests = "diary_http_requests_total"
        #expect(Self.sample(text, requests, ["method": "GET", "route": "/health", "status_class": "2xx"]) == 4, "\(text)")
        #expect(Self.sample(text, requests, ["method": "GET", "route": "/health", "status_class": "5xx"]) == 1)
        #expect(Self.sample(text, requests, ["method": "GET", "route": "/v1/diaries/{diaryID}", "status_class": "4xx"]) == 2)
        #expect(Self.sample(text, requests, ["method": "GET", "route": "unmatched", "status_class": "4xx"]) == 1)
        #expect(Self.sample(text, requests, ["method": "POST", "route": "/v1/_test/faults", "status_class": "2xx"]) == 1)
        let duration = "diary_http_request_duration_seconds"
        #expect(Self.sample(text, duration + "_count", ["route": "/health", "status_class": "2xx"]) == 4)
        #expect(Self.sample(text, duration + "_bucket", ["route": "/health", "status_class": "2xx", "le": "+Inf"]) == 4)
        #expect(!text.contains("00000000-0000-0000-0000-000000000001"), "no raw path is a label")

        // The API's port has no /metrics.
        #expect(try await client.send("GET", "/metrics").status == 404)
    }

    @Test func withoutAMetricsPortNothingIsServed() async throws {
        let server = try await ReferenceServer.start(extraArguments: [])
        defer { server.stop() }
        #expect(try await TestClient(baseURL: server.baseURL).send("GET", "/metrics").status == 404)
        #expect(!server.log.contains("metrics on"))
    }

    @Test(.enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
    func theDatabaseReportsTransactionsAndConnections() async throws {
        let server = try await PostgresReferenceServer.start(environment: ["DIARY_METRICS_PORT": "0"])
        defer { server.stop() }
        let metrics = try await Self.metricsURL(of: server)
        let client = TestClient(baseURL: server.baseURL)
        let signedUp = try await SessionFixture.signUp(client, "measured")
        #expect(try await SessionFixture.me(client, signedUp.access) == 200)
        let text = try await Self.scrape(metrics).text
        let transactions = "diary_db_transaction_duration_seconds_count"
        #expect((Self.sample(text, transactions, ["kind": "write"]) ?? 0) >= 1, "\(text)")
        #expect((Self.sample(text, transactions, ["kind": "read"]) ?? 0) >= 1, "\(text)")
        // Nothing is in flight between requests.
        #expect(Self.sample(text, "diary_db_connections_in_use", [:]) == 0, "\(text)")
        #expect(Self.sample(text, "diary_db_connections_waiting", [:]) == 0, "\(text)")
        #expect(Self.sample(text, "diary_db_write_retries_total", [:]) != nil, "\(text)")
    }
}
