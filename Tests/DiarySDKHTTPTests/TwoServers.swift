import DiarySDK
@testable import DiarySDKHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two reference server processes on one PostgreSQL schema, as two instances behind a load balancer.
///
/// Sign-ups are not rate limited here (`--auth-rate-limit 0`): the tests sign up dozens of users from one address.
struct TwoServers: Sendable {
    let servers: [ReferenceServer]
    let schema: String

    /// Starts both servers on a fresh schema (the second once the first has migrated it).
    static func start(extraArguments: [String] = []) async throws -> TwoServers {
        let schema = PostgresReferenceServer.freshSchema()
        let first = try await PostgresReferenceServer.start(schema: schema, extraArguments: ["--auth-rate-limit", "0"] + extraArguments)
        do {
            let second = try await PostgresReferenceServer.start(schema: schema, extraArguments: ["--auth-rate-limit", "0"] + extraArguments)
            return TwoServers(servers: [first, second], schema: schema)
        } catch {
            first.stop()
            throw error
        }
    }

    /// Starts two servers, runs `body` with them and stops them, holding the PostgreSQL suites' whole world budget
    /// meanwhile: the races these tests run load the machine on their own.
    static func with<Result: Sendable>(_ body: (TwoServers) async throws -> Result) async throws -> Result {
        try await PostgresReferenceServer.worlds.exclusively {
            let pair = try await start()
            defer { pair.stop() }
            return try await body(pair)
        }
    }

    func stop() {
        for server in servers { server.stop() }
    }

    // Devices never retry, so a slow or failed request shows as itself instead of hiding behind a retry on the other
    // server (which would be safe: idempotency records are shared through the database).

    /// A signed-out device talking to server `index % 2` only.
    func device(on index: Int) -> DiaryRepositories {
        HTTPBackend(configuration: .init(baseURL: servers[index % 2].baseURL, retry: RetryPolicy(maximumAttempts: 1))).repositories
    }

    /// A signed-out device whose requests alternate between the servers, one request here, the next there.
    func alternatingDevice(headers: [String: String] = [:]) -> DiaryRepositories {
        let transport = AlternatingTransport(baseURLs: servers.map(\.baseURL))
        return HTTPBackend(
            configuration: .init(baseURL: servers[0].baseURL, retry: RetryPolicy(maximumAttempts: 1), additionalHeaders: headers),
            transport: transport
        ).repositories
    }

    /// A new device on server `index % 2` with `actor` signed in (a session of its own).
    func signIn(_ actor: ServerUser, on index: Int) async throws -> DiaryRepositories {
        let sdk = device(on: index)
        _ = try await sdk.accounts.signIn(.password(email: "\(actor.user.nickname)@example.com", password: "correct horse battery"))
        return sdk
    }

    /// Signs up `nickname` on server `index % 2`.
    func user(_ nickname: String, on index: Int) async throws -> ServerUser {
        let sdk = device(on: index)
        let user = try await sdk.accounts.signUp(
            SignUpRequest(email: "\(nickname)@example.com", password: "correct horse battery", nickname: nickname))
        return ServerUser(sdk: sdk, user: user)
    }
}

/// A signed-in user of a two-server test: the device and the user.
struct ServerUser: Sendable {
    let sdk: DiaryRepositories
    let user: User
    var id: User.ID { user.id }
}

/// Sends each request to the next of several servers in turn (round robin per request), over URLSession: the
/// request's scheme, host and port are replaced, its path and query kept.
final class AlternatingTransport: HTTPTransport, @unchecked Sendable {
    private let baseURLs: [URL]
    private let next = Locked(0)
    private let inner = URLSessionTransport(session: .shared)
    /// How many requests went to each server, by index.
    let sent: Locked<[Int]>

    init(baseURLs: [URL]) {
        self.baseURLs = baseURLs
        sent = Locked(Array(repeating: 0, count: baseURLs.count))
    }

    private func redirected(_ request: URLRequest) -> URLRequest {
        let index = next.withLock { value -> Int in
            defer { value = (value + 1) % baseURLs.count }
            return value
        }
        sent.withLock { $0[index] += 1 }
        var request = request
        guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let target = URLComponents(url: baseURLs[index], resolvingAgainstBaseURL: false)
        else { return request }
        components.scheme = target.scheme
        components.host = target.host
        components.port = target.port
        request.url = components.url
        return request
    }

    func send(_ request: URLRequest, body: Data?) async throws -> (Data, HTTPURLResponse) {
        try await inner.send(redirected(request), body: body)
    }

    func upload(
        _ request: URLRequest, body: Data, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse) {
        try await inner.upload(redirected(request), body: body, progress: progress)
    }

    func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> {
        inner.stream(redirected(request))
    }
}

/// Every item of a paged listing.
func allItems<Item: Sendable>(_ fetch: @escaping @Sendable (PageRequest) async throws -> Page<Item>) async throws -> [Item] {
    var items: [Item] = []
    for try await item in PageSequence(first: .first(size: 100), fetch: fetch).items { items.append(item) }
    return items
}
