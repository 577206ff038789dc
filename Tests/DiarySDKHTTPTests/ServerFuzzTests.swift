import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

/// Random requests against every route the real server registered (`GET /v1/_test/routes`): path parameters,
/// query parameters, headers and bodies drawn from values that break careless code (integer edges, malformed ids,
/// dates and months out of range, deep nesting, wrong types). Bounded in count and time, loopback only, seeded
/// (`DIARY_FUZZ_SEED` replays a run). Every answer must be below 500, every 4xx a problem document, and the server
/// alive at the end.
@Suite("Reference server fuzzing")
struct ServerFuzzTests {
    /// Requests per route.
    static let requestsPerRoute = 14
    /// The whole run stops sending after this many seconds.
    static let timeLimit: TimeInterval = 120

    struct Route: Decodable {
        var method: String
        var path: String
        var isPublic: Bool
    }

    @Test func randomRequestsToEveryRouteAnswerBelow500AndTheServerStaysUp() async throws {
        let seed = ProcessInfo.processInfo.environment["DIARY_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_123
        var random = SeededRandomGenerator(seed: seed)
        let server = try await ReferenceServer.shared()
        let control = try await TestClient(baseURL: server.baseURL).newWorld()
        let routes = try await control.send("GET", "/v1/_test/routes").json([Route].self)
        #expect(routes.count > 70, "the server lists its routes")
        let started = Date()
        var failures: [String] = []
        var sent = 0
        var statuses: [Int: Int] = [:]
        for (index, route) in routes.enumerated() {
            guard Date().timeIntervalSince(started) < Self.timeLimit else { break }
            // A world per route: the fuzzed requests to sign-up, sign-in and the email check draw on the world's
            // rate-limit bucket, and must not starve the next route's sign-up.
            let world = try await control.newWorld()
            let token = try await Self.signUp(world, index: index)
            for _ in 0..<Self.requestsPerRoute {
                let request = FuzzRequest.random(for: route, token: token, using: &random)
                let reply: TestClient.Reply
                do {
                    reply = route.path == "/v1/changes"
                        ? try await Self.openStream(world, request) : try await world.send(
                            route.method, request.target, body: request.body, token: nil, headers: request.headers)
                } catch {
                    failures.append("\(route.method) \(request.target): no answer (\(error))")
                    continue
                }
                sent += 1
                statuses[reply.status, default: 0] += 1
                if reply.status >= 500 {
                    failures.append("\(route.method) \(request.target) \(request.headers) → \(reply.status) \(reply.text.prefix(300))")
                } else if reply.status >= 400, reply.headers["content-type"] != "application/problem+json" {
                    failures.append("\(route.method) \(request.target) → \(reply.status) without a problem document")
                }
            }
        }
        print("fuzz seed \(seed): \(sent) requests, statuses \(statuses.sorted { $0.key < $1.key })")
        #expect(sent >= routes.count * Self.requestsPerRoute / 2, "most requests were sent within the time limit")
        #expect(failures.isEmpty, "seed \(seed): \(failures.count) failures:\n\(failures.prefix(40).joined(separator: "\n"))")
        #expect(try await control.send("GET", "/health").status == 200, "the server is alive after \(sent) requests")
    }

    /// The change stream never ends: read its status and headers over a raw connection, then close it.
    static func openStream(_ control: TestClient, _ request: FuzzRequest) async throws -> TestClient.Reply {
        let port = control.baseURL.port ?? 80
        let world = control.world ?? ""
        let response = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            let headers = request.headers.map { "\($0.key): \($0.value)\r\n" }.joined()
            connection.send("GET \(request.target) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Diary-World: \(world)\r\n\(headers)\r\n")
            return try connection.readHead()
        }
        return TestClient.Reply(status: response.status, body: Data(), headers: response.headers)
    }

    /// A fresh user per route, so a route that ends the session or the account does not blunt the others.
    static func signUp(_ control: TestClient, index: Int) async throws -> String {
        let body = Data(#"{"email":"fuzz\#(index)@example.com","password":"correct horse battery","nickname":"fuzz\#(index)"}"#.utf8)
        let reply = try await control.send("POST", "/v1/auth/sign-up", body: body)
        guard reply.status == 201, let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any],
            let token = object["accessToken"] as? String
        else { throw ServerError("fuzz sign-up answered \(reply.status): \(reply.text)") }
        return token
    }
}

/// One random request.
struct FuzzRequest {
    var target: String
    var headers: [String: String]
    var body: Data?

    static func random(for route: ServerFuzzTests.Route, token: String, using random: inout SeededRandomGenerator) -> FuzzRequest {
        var path = ""
        for segment in route.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let value = segment.hasPrefix(":") ? FuzzValues.pathValue(named: String(segment.dropFirst()), using: &random) : String(segment)
            path += "/" + value
        }
        var query: [String] = []
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            let name = FuzzValues.queryNames.randomElement(using: &random)!
            query.append("\(name)=\(FuzzValues.encode(FuzzValues.queryValue(named: name, using: &random)))")
        }
        var headers: [String: String] = [:]
        switch Int.random(in: 0..<10, using: &random) {
        case 0: break
        case 1: headers["Authorization"] = FuzzValues.strings.randomElement(using: &random)!.filter(FuzzValues.isHeaderSafe)
        case 2: headers["Authorization"] = "Bearer " + String(token.reversed())
        default: headers["Authorization"] = "Bearer \(token)"
        }
        if Bool.random(using: &random) {
            headers["Content-Type"] = FuzzValues.contentTypes.randomElement(using: &random)!
        }
        if Int.random(in: 0..<4, using: &random) == 0 {
            headers["Idempotency-Key"] = ["", "k", String(repeating: "k", count: 300), FuzzValues.id, "🙂"]
                .randomElement(using: &random)!.filter(FuzzValues.isHeaderSafe)
        }
        // FoundationNetworking's URLSession fails a GET that carries a body on the client side, so GETs carry none.
        let body: Data? = route.method == "GET" ? nil : FuzzValues.body(using: &random)
        if body != nil, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        return FuzzRequest(target: path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), headers: headers, body: body)
    }
}

/// The values the fuzzer draws from.
enum FuzzValues {
    static let integers = ["0", "-1", "1", "100", "101", "1000000", "-1000000", "\(Int.max)", "\(Int.min)",
        "9223372036854775808", "-9223372036854775809", "1e309", "NaN", "0x10", " 1", "1.5", ""]
    static let strings = ["", " ", "a", String(repeating: "x", count: 3000), "😊", "\u{0}", "%00", "..", "../..",
        "%2e%2e%2f", "null", "true", "{}", "[]", "'", "\"", "\\", "<script>", "e\u{301}\u{301}\u{301}", "\u{202E}abc"]
    static let id = "3f2a9c1e-7b4d-4e8a-9f10-2c3d4e5f6a7b"
    static let ids = [id, id.uppercased(), "00000000-0000-0000-0000-000000000000",
        "not-a-uuid", "", "ffffffff-ffff-ffff-ffff-ffffffffffff", "1", String(repeating: "a", count: 500)]
    static let months = ["2026-01", "2026-13", "2026-00", "0000-01", "0001-01", "9999-12", "99999-01", "-001-01",
        "2026-1", "2026-01-01", "+2026-01", "2026--1", "\(Int.max)-01", "2026-\(Int.max)", ""]
    static let days = ["2026-01-31", "2026-02-30", "2026-00-00", "0000-01-01", "9999-12-31", "99999-01-01",
        "2026-01-\(Int.max)", "-1-01-01", "2026-1-1", ""]
    static let dates = ["2026-11-22T09:30:00.123456Z", "1970-01-01T00:00:00Z", "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999Z", "99999-01-01T00:00:00Z", "2026-02-30T25:61:61Z", "2026-11-22T09:30:00.1234567890123Z",
        "2026-11-22", "-2026-01-01T00:00:00Z", "2026-11-22T09:30:00+99:99", ""]
    static let contentTypes = ["application/json", "application/json; charset=utf-8", "text/plain", "", "image/png",
        "image/jpeg", "multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=x",
        "application/problem+json", "application/x-www-form-urlencoded", ";;;", "application/json; boundary="]
    static let queryNames = ["page", "size", "cursor", "q", "text", "tag", "value", "authorID", "bookID", "userID",
        "month", "day", "favouritesOnly", "includeHidden", "record"]

    static func pathValue(named name: String, using random: inout SeededRandomGenerator) -> String {
        let pool = name == "month" ? months : Bool.random(using: &random) ? ids : strings + integers
        return encode(pool.randomElement(using: &random)!)
    }

    static func queryValue(named name: String, using random: inout SeededRandomGenerator) -> String {
        switch name {
        case "page", "size": integers.randomElement(using: &random)!
        case "cursor": (strings + ["eyJ9", "AAAA", Data("{\"k\":[1e400]}".utf8).base64EncodedString(), "====="]).randomElement(using: &random)!
        case "authorID", "bookID", "userID": ids.randomElement(using: &random)!
        case "month": months.randomElement(using: &random)!
        case "day": days.randomElement(using: &random)!
        default: (strings + integers).randomElement(using: &random)!
        }
    }

    /// A body: random bytes, JSON of the wrong shape, or a plausible document with some values replaced.
    static func body(using random: inout SeededRandomGenerator) -> Data {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return Data((0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 1: return Data((["", "null", "[]", "{}", "0", "\"x\"", "1e999", "{\"a\":", String(repeating: "[", count: 5000)]
            .randomElement(using: &random)!).utf8)
        default:
            var document = plausible
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let key = document.keys.sorted().randomElement(using: &random)!
                document[key] = Bool.random(using: &random) ? weird(using: &random) : nil
            }
            return (try? JSONSerialization.data(withJSONObject: document, options: [.fragmentsAllowed])) ?? Data("{}".utf8)
        }
    }

    /// One object with the members of every request body (decoders ignore members they do not know), valid values.
    static var plausible: [String: Any] {
        return [
            "email": "someone@example.com", "password": "correct horse battery", "nickname": "someone",
            "refreshToken": "x.y.z", "title": "title", "body": "body", "mood": "😊", "tags": ["a", "b"],
            "images": [["id": id]], "visibility": "private", "bookID": id, "date": "2026-01-01", "value": true,
            "isAnonymous": false, "target": ["type": "post", "id": id], "reason": "spam", "detail": "detail",
            "token": "device-token", "platform": "apns", "bio": "bio", "avatar": NSNull(), "url": "https://example.com/feed",
            "guid": "g", "publishedAt": "2026-01-01T00:00:00Z", "now": "2026-01-01T00:00:00Z", "isPrivate": true,
            "notifications": ["likes": true], "lastSyncedAt": "2026-01-01T00:00:00Z", "type": "password",
        ]
    }

    static func weird(using random: inout SeededRandomGenerator) -> Any {
        let pool: [Any] = [
            Int.max, Int.min, -1, 0, 1.0e308, -1.0e308, Double.leastNonzeroMagnitude, NSNull(), [Any](), [String: Any](),
            true, ["_0": Int.max], [["id": "x"]], Array(repeating: "t", count: 50),
        ] + strings + ids + dates + days + months
        return pool.randomElement(using: &random)!
    }

    /// Whether a character may appear in a header value as sent (printable ASCII).
    static func isHeaderSafe(_ character: Character) -> Bool {
        character.asciiValue.map { (0x20..<0x7F).contains($0) } ?? false
    }

    /// Percent-encodes everything but unreserved characters, so any value makes a valid URL.
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }
}
