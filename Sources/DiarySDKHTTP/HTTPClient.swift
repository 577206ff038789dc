@_spi(Engine) import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends ``HTTPRequest``s for one ``HTTPBackend``: adds the access token and the idempotency key, retries what may
/// be retried, refreshes the session on a 401, joins identical calls already in flight, and turns every failure
/// into a ``DiaryError`` carrying the HTTP status and the server's message.
final class HTTPClient: Sendable {
    let configuration: HTTPBackend.Configuration
    let transport: any HTTPTransport
    let sessions: SessionManager
    private let inFlight = InFlightRequests()
    /// Profile edits from this device, one at a time (``sendProfileEdit(_:)``).
    private let profileEdits = WriterQueue()
    /// How many writes have finished: reads are joined only with reads that started after the same write.
    private let writes = Locked<UInt64>(0)

    /// How many calls are waiting for a request they share (for tests).
    var callersWaiting: Int { inFlight.waiterCount }

    init(configuration: HTTPBackend.Configuration, transport: any HTTPTransport) {
        self.configuration = configuration
        self.transport = transport
        self.sessions = SessionManager(store: configuration.tokenStore, leeway: configuration.refreshLeeway)
    }

    /// Sends a request and returns the body of its 2xx response.
    /// Every failure, including a cancellation noticed between attempts, surfaces as a `DiaryError`.
    func send(_ request: HTTPRequest) async throws -> Data {
        do {
            // Identical calls in flight share one request (a double-tapped button, two screens refreshing at once),
            // but only when made as the same user, and a read never joins one that started before a write finished
            // (it could miss that write).
            guard request.deduplicate else { return try await perform(request) }
            var principal = sessions.principal
            if principal == nil {
                _ = try await sessions.current()  // the first call of a launch reads the stored session
                principal = sessions.principal
            }
            var key = request.deduplicationKey + " as:" + (principal ?? "signed-out")
            if request.method == "GET" { key += " after:" + String(writes.current) }
            defer { if request.method != "GET" { writes.withLock { $0 += 1 } } }
            return try await inFlight.run(key: key) { try await self.perform(request) }
        } catch {
            throw Self.transportError(error, request: request, timeout: configuration.timeout)
        }
    }

    /// Sends a profile or settings edit and publishes the profile its answer carries as `profileUpdated`. This
    /// device's edits go one at a time, so the server applies them in the order they are published and the last
    /// profile published is the newest. They are not joined: after edits A, B and A again, the profile ends on A.
    func sendProfileEdit(_ request: HTTPRequest) async throws -> User {
        try await profileEdits.run {
            let user = try await send(request, as: User.self)
            sessions.authStates.profileUpdated(user)
            return user
        }
    }

    /// Sends a request and decodes its JSON response.
    func send<Value: Decodable>(_ request: HTTPRequest, as _: Value.Type = Value.self) async throws -> Value {
        let data = try await send(request)
        do {
            // The fast reader for the hottest responses (pages of posts and diary entries), JSONDecoder otherwise.
            return try WireJSON.decode(Value.self, from: data)
        } catch {
            throw DiaryError(
                .server, "the server's answer to \(request.method) \(request.path) is not a valid \(Value.self)",
                underlying: error)
        }
    }

    /// A request with a JSON body in the SDK's wire format.
    func request<Body: Encodable>(_ method: String, _ path: String, json body: Body, authenticated: Bool = true) throws -> HTTPRequest {
        var request = HTTPRequest(method, path, authenticated: authenticated)
        request.body = try JSONEncoder.diary().encode(body)
        request.contentType = "application/json"
        return request
    }

    private func perform(_ request: HTTPRequest) async throws -> Data {
        var attempt = 0
        var refreshed = false
        while true {
            attempt += 1
            try Task.checkCancellation()
            var token: String?
            if request.authenticated {
                if let current = sessions.currentAccessToken() {
                    token = current
                } else {
                    token = try await sessions.accessToken(refresher: refreshSession)
                }
            }
            let urlRequest = try makeURLRequest(request, token: token ?? request.bearerOverride)
            let data: Data
            let response: HTTPURLResponse
            do {
                if let progress = request.progress {
                    (data, response) = try await transport.upload(urlRequest, body: request.body ?? Data(), progress: progress)
                } else {
                    (data, response) = try await transport.send(urlRequest, body: request.body)
                }
            } catch {
                let failure = Self.transportError(error, request: request, timeout: configuration.timeout)
                guard failure.code != .cancelled, request.isIdempotent, attempt < configuration.retry.maximumAttempts else {
                    throw failure
                }
                try await Self.sleep(configuration.retry.backoff(beforeRetry: attempt))
                continue
            }
            if (200..<300).contains(response.statusCode) { return data }
            let error = ProblemDecoder.error(status: response.statusCode, data: data, headers: response)
            if response.statusCode == 401, let token, !refreshed {
                refreshed = true
                attempt -= 1
                _ = try await sessions.refresh(replacing: token, refresher: refreshSession)
                continue
            }
            guard request.isIdempotent, RetryPolicy.isRetryable(status: response.statusCode),
                attempt < configuration.retry.maximumAttempts
            else { throw error }
            let wait = error.retryAfter ?? configuration.retry.backoff(beforeRetry: attempt)
            guard wait <= configuration.retry.maximumRetryAfter else { throw error }
            try await Self.sleep(wait)
        }
    }

    /// Trades a refresh token for a new pair (`POST /v1/auth/refresh`); retried safely thanks to its idempotency key.
    @Sendable func refreshSession(refreshToken: String, userID: User.ID) async throws -> StoredSession {
        var request = try self.request(
            "POST", "/v1/auth/refresh", json: ["refreshToken": refreshToken], authenticated: false)
        request.deduplicate = false
        let reply = try await send(request, as: AuthReply.self)
        return reply.session(userID: userID)
    }

    /// The request for a long-lived stream: no request timeout of its own (the server sends keep-alive comments).
    func streamRequest(
        path: String, query: [(String, String)] = [], token: String, lastEventID: ChangePosition? = nil
    ) throws -> URLRequest {
        var request = try makeURLRequest(HTTPRequest("GET", path, query: query), token: token)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let lastEventID { request.setValue(lastEventID.rawValue, forHTTPHeaderField: "Last-Event-ID") }
        request.timeoutInterval = max(configuration.timeout, 3600)
        return request
    }

    private func makeURLRequest(_ request: HTTPRequest, token: String?) throws -> URLRequest {
        var text = configuration.baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += request.path
        if !request.query.isEmpty { text += "?" + request.encodedQuery }
        guard let url = URL(string: text) else {
            throw DiaryError(.invalidInput, "'\(text)' is not a valid URL", field: "baseURL")
        }
        // Uploads get four times the timeout.
        var urlRequest = URLRequest(url: url, timeoutInterval: configuration.timeout * (request.progress == nil ? 1 : 4))
        urlRequest.httpMethod = request.method
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in configuration.additionalHeaders { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let contentType = request.contentType { urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let token { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let key = request.idempotencyKey { urlRequest.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        return urlRequest
    }

    static func sleep(_ seconds: TimeInterval) async throws {
        guard seconds > 0 else { return }
        do {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        } catch {
            throw DiaryError(.cancelled, "the request was cancelled", underlying: error)
        }
    }

    /// The error for a request that got no HTTP response.
    static func transportError(_ error: any Error, request: HTTPRequest, timeout: TimeInterval) -> DiaryError {
        if let error = error as? DiaryError { return error }
        if error is CancellationError { return DiaryError(.cancelled, "the request was cancelled", underlying: error) }
        let what = "\(request.method) \(request.path)"
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled:
                return DiaryError(.cancelled, "\(what) was cancelled", underlying: urlError)
            case .timedOut:
                return DiaryError(.unavailable, "\(what) timed out after \(timeout) s", underlying: urlError)
            default:
                return DiaryError(
                    .unavailable, "\(what) failed: the server could not be reached (\(urlError.code.rawValue))",
                    underlying: urlError)
            }
        }
        return DiaryError(.unavailable, "\(what) failed: \(error)", underlying: DiaryError.wrapping(error))
    }
}
