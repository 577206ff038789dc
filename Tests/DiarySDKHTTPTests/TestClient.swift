import DiarySDK
@testable import DiarySDKHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Raw HTTP for tests: the test-mode control routes, and requests the SDK would never send (forged tokens).
struct TestClient: Sendable {
    let baseURL: URL
    var world: String?

    struct Reply: Sendable {
        var status: Int
        var body: Data
        var headers: [String: String]
        var text: String { String(decoding: body, as: UTF8.self) }
        func json<Value: Decodable>(_: Value.Type = Value.self) throws -> Value {
            try JSONDecoder.diary().decode(Value.self, from: body)
        }
    }

    @discardableResult
    func send(
        _ method: String, _ path: String, body: Data? = nil, token: String? = nil, headers: [String: String] = [:]
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!, timeoutInterval: 30)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let world { request.setValue(world, forHTTPHeaderField: "X-Diary-World") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSessionTransport(session: .shared).send(request, body: body)
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Reply(status: response.statusCode, body: data, headers: fields)
    }

    func sendJSON<Body: Encodable>(_ method: String, _ path: String, _ body: Body, token: String? = nil) async throws -> Reply {
        try await send(method, path, body: try JSONEncoder.diary().encode(body), token: token)
    }

    /// Creates an isolated world and returns a client addressing it.
    /// - Parameter recorded: Whether the server appends the world's exchanges to its contract log (when it was
    ///   started with one), for scripts/validate_contract.py.
    func newWorld(recorded: Bool = false) async throws -> TestClient {
        let reply = try await send("POST", recorded ? "/v1/_test/worlds?record=true" : "/v1/_test/worlds")
        guard reply.status == 201 else { throw ServerError("creating a world answered \(reply.status): \(reply.text)") }
        struct Created: Decodable { var value: String }
        var client = self
        client.world = try reply.json(Created.self).value
        return client
    }

    /// Installs fault rules in this client's world.
    func injectFaults(_ rules: [[String: Any]]) async throws {
        let reply = try await send("POST", "/v1/_test/faults", body: try JSONSerialization.data(withJSONObject: rules))
        guard reply.status == 204 else { throw ServerError("installing faults answered \(reply.status): \(reply.text)") }
    }

    /// Counters of this client's world.
    func stats() async throws -> (refreshes: Int, requests: [String: Int]) {
        struct Stats: Decodable {
            var refreshes: Int
            var requests: [String: Int]
        }
        let stats = try await send("GET", "/v1/_test/stats").json(Stats.self)
        return (stats.refreshes, stats.requests)
    }
}
