@_spi(Engine) import DiarySDK
@testable import DiarySDKHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport whose answers a test scripts, for conditions a real server cannot produce on demand.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    typealias Handler = @Sendable (URLRequest, Data?) async throws -> (Int, Data)

    private let handler: Handler
    private let log = Locked<[URLRequest]>([])

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// Every request sent, in order.
    var requests: [URLRequest] { log.current }

    /// How many requests went to a path (`"POST /v1/posts"`).
    func count(_ route: String) -> Int {
        requests.filter { "\($0.httpMethod ?? "GET") \($0.url?.path ?? "")" == route }.count
    }

    func send(_ request: URLRequest, body: Data?) async throws -> (Data, HTTPURLResponse) {
        log.withLock { $0.append(request) }
        let (status, data) = try await handler(request, body)
        let response = HTTPURLResponse(
            url: request.url!, statusCode: status, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Type": status < 300 ? "application/json" : "application/problem+json"])!
        return (data, response)
    }

    func upload(
        _ request: URLRequest, body: Data, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse) {
        progress(Int64(body.count / 2), Int64(body.count))
        return try await send(request, body: body)
    }

    func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { $0.finish() }
    }

    /// A backend over this transport, with an already signed-in session.
    func backend(
        session: StoredSession? = nil, store: InMemorySessionStore = InMemorySessionStore(), retry: RetryPolicy = .init(baseDelay: 0.01),
        leeway: TimeInterval = -3600
    ) async throws -> HTTPBackend {
        if let session { try await store.save(session) }
        return HTTPBackend(
            configuration: .init(
                baseURL: URL(string: "http://127.0.0.1:9")!, tokenStore: store, timeout: 5, retry: retry,
                refreshLeeway: leeway),
            transport: self)
    }
}

/// JSON helpers for scripted answers.
enum Script {
    static let user = User(id: User.ID(UUID()), nickname: "alice", email: "alice@example.com", createdAt: Date(timeIntervalSince1970: 0))

    static func json<Value: Encodable>(_ value: Value) -> Data {
        (try? JSONEncoder.diary().encode(value)) ?? Data()
    }

    static func problem(_ status: Int, _ code: String, _ detail: String, hint: String? = nil) -> Data {
        var object: [String: Any] = ["type": "about:blank", "title": code, "status": status, "detail": detail, "code": code]
        if let hint { object["hint"] = hint }
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    static func tokens(_ access: String, refresh: String = "refresh-2") -> Data {
        let object: [String: Any] = [
            "accessToken": access, "refreshToken": refresh, "expiresAt": WireDate.string(from: Date().addingTimeInterval(900)),
            "tokenType": "Bearer",
        ]
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    static func session(access: String = "access-1") -> StoredSession {
        StoredSession(userID: user.id, accessToken: access, refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-60))
    }

    /// A signed-in session whose access token is good for another 15 minutes: no refresh gets in the way.
    static func validSession() -> StoredSession {
        var session = session()
        session.expiresAt = Date().addingTimeInterval(900)
        return session
    }
}
