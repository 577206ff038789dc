import Crypto
import DiarySDK
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The REST API of docs/openapi.yaml: route registration and the per-request pipeline (world, faults,
/// authentication, body limits, idempotency, errors).
struct DiaryAPI: Sendable {
    /// The token of an `Authorization: Bearer <token>` header (its scheme already checked): what follows the
    /// scheme, without the optional whitespace (spaces and tabs, RFC 9110 §5.6.3) around it.
    static func credentials(ofAuthorization header: String) -> String {
        var value = header.dropFirst(7)
        while let first = value.first, first == " " || first == "\t" { value.removeFirst() }
        while let last = value.last, last == " " || last == "\t" { value.removeLast() }
        return String(value)
    }

    let registry: WorldRegistry
    let options: ServerOptions
    /// Where recorded worlds' exchanges go (`--contract-log`, test mode only).
    let contractLog: ContractLog?
    /// The limit on sign-up, sign-in and the email check (routes registered with `rateLimited: true`).
    let authRateLimit: AuthRateLimit
    /// Every route registered so far (`GET /v1/_test/routes` lists them for the fuzz test).
    let routes = Protected<[RegisteredRoute]>([])

    typealias Handler = @Sendable (Call) async throws -> Reply

    /// The longest `Idempotency-Key` accepted.
    static let maximumIdempotencyKeyLength = 255

    /// When a request's session is checked (its access token's signature and expiry are always checked first,
    /// before the body is read).
    enum SessionCheck: Sendable {
        /// Before the body is read and the handler runs.
        case first
        /// With the first read of the handler's first storage transaction, on a store that can (PostgreSQL), so
        /// it costs no statement of its own; in any case before that transaction commits and before the server
        /// answers, the session's refusal replacing any other answer (``TokenService/VerifiedAccess``). Only for a
        /// handler whose effects are all the engine's storage transactions (``engineRoute(_:_:_:body:_:)``).
        case withStorage
    }

    /// Registers one route.
    /// - Parameters:
    ///   - auth: Whether the route needs an access token; its signature and expiry are checked before the body is
    ///     read.
    ///   - body: What the route reads from the body; `nil` is `.empty` for `GET` and `DELETE`, `.json` otherwise.
    ///   - rateLimited: Whether the route draws on the client's `authRateLimit` bucket (before anything else).
    ///   - sessionCheck: When the session is checked.
    func route(
        _ router: Router<DiaryRequestContext>, _ method: HTTPRequest.Method, _ path: RouterPath, auth: Bool = true,
        body: BodyPolicy? = nil, rateLimited: Bool = false, sessionCheck: SessionCheck = .first,
        _ handler: @escaping Handler
    ) {
        let registered = RegisteredRoute(method: method.rawValue, path: path.description, isPublic: !auth)
        let policy = body ?? (method == .get || method == .delete ? .empty : .json)
        routes.withLock { $0.append(registered) }
        router.on(path, method: method) { request, context in
            if rateLimited, let refusal = await authRateLimit.refusal(for: request, context) {
                return Self.response(Self.stored(refusal))
            }
            return await dispatch(request, context, route: registered, policy: policy, sessionCheck: sessionCheck, handler)
        }
    }

    /// Registers a route whose handler acts only through `call.engine` (no task, stream, file or session of its
    /// own): its session check rides on the engine's first storage transaction (``SessionCheck/withStorage``).
    func engineRoute(
        _ router: Router<DiaryRequestContext>, _ method: HTTPRequest.Method, _ path: RouterPath,
        body: BodyPolicy? = nil, _ handler: @escaping Handler
    ) {
        route(router, method, path, body: body, sessionCheck: .withStorage, handler)
    }

    /// What the pipeline produced for one request.
    private enum Answer {
        /// A complete response (replayed when it came from the idempotency store).
        case complete(StoredResponse, replayed: Bool)
        /// A streaming response (the change stream).
        case stream(Response)
        /// Close the connection without answering (a test fault).
        case drop
    }

    private func dispatch(
        _ request: Request, _ context: DiaryRequestContext, route: RegisteredRoute, policy: BodyPolicy,
        sessionCheck: SessionCheck, _ handler: @escaping Handler
    ) async -> Response {
        let worldName = request.headers[HTTPField.Name("X-Diary-World")!]
        guard let world = await registry.world(named: worldName) else {
            return Self.response(Self.stored(DiaryError.notFound("world \(worldName ?? "")")))
        }
        var requestBody = Data()
        var malformed = false
        let answer = await self.answer(
            request, context, world: world, route: route, policy: policy, sessionCheck: sessionCheck,
            body: &requestBody, malformed: &malformed, handler)
        switch answer {
        case .drop:
            context.channel.close(promise: nil)
            return Response(status: .internalServerError)
        case .stream(var response):
            if world.recordsContract, let contractLog {
                let (status, contentType, requestBody) = (response.status.code, response.headers[.contentType], requestBody)
                response.body = contractLog.recording(response.body) { events in
                    contractLog.record(request, route: route, body: requestBody, status: status,
                        contentType: contentType, responseBody: events)
                }
            }
            return response
        case .complete(let stored, let replayed):
            if world.recordsContract, !malformed {
                contractLog?.record(request, route: route, body: requestBody, status: stored.status,
                    contentType: stored.contentType, responseBody: stored.body)
            }
            var response = Self.response(stored, malformed: malformed)
            if replayed { response.headers[HTTPField.Name("Idempotency-Replayed")!] = "true" }
            return response
        }
    }

    private func answer(
        _ request: Request, _ context: DiaryRequestContext, world: World, route: RegisteredRoute, policy: BodyPolicy,
        sessionCheck: SessionCheck, body requestBody: inout Data, malformed: inout Bool, _ handler: @escaping Handler
    ) async -> Answer {
        var request = request
        let method = request.method.rawValue
        var dropResponse = false
        var fail = false
        if options.testMode, let fault = world.faults.take(method: method, path: request.uri.path) {
            switch fault.action {
            case .status:
                let status = fault.status ?? 500
                let code: DiaryError.Code = status == 429 ? .rateLimited : status == 503 ? .unavailable : .server
                var stored = Self.stored(
                    DiaryError(code, "injected fault \(status)", retryAfter: fault.retryAfter.flatMap(Double.init),
                        httpStatus: status))
                stored.retryAfter = fault.retryAfter
                return .complete(stored, replayed: false)
            case .delay:
                try? await Task.sleep(nanoseconds: UInt64((fault.delay ?? 1) * 1_000_000_000))
            case .drop:
                return .drop
            case .malformed:
                malformed = true
            case .dropResponse:
                dropResponse = true
            case .fail:
                fail = true
            }
        }
        var verified: TokenService.VerifiedAccess?
        do {
            var userID: User.ID?
            var sessionID: String?
            let idempotencyKey = request.method == .get ? nil : request.headers[HTTPField.Name("Idempotency-Key")!]
            if !route.isPublic {
                guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
                    throw DiaryError(.unauthenticated, "this route needs an Authorization: Bearer access token")
                }
                // An idempotent write records its key before the handler runs: its session is checked first.
                let access = try await world.tokens.verifyAccess(
                    Self.credentials(ofAuthorization: header),
                    deferringTheSessionCheck: sessionCheck == .withStorage && idempotencyKey == nil)
                userID = access.userID
                sessionID = access.sid
                verified = access
            }
            requestBody = try await RequestLimits.readBody(of: &request, policy)
            if fail { throw InjectedFailure() }
            world.stats.withLock { $0.requests["\(method) \(route.path)", default: 0] += 1 }
            let call = Call(
                request: request, context: context, world: world, userID: userID, sessionID: sessionID,
                body: requestBody, testMode: options.testMode)
            if let key = idempotencyKey {
                guard (1...Self.maximumIdempotencyKeyLength).contains(key.utf8.count) else {
                    throw DiaryError.invalid(
                        "Idempotency-Key", .tooLong,
                        "an Idempotency-Key has 1 to \(Self.maximumIdempotencyKeyLength) characters")
                }
                let scope = "\(userID?.rawValue.uuidString ?? "anonymous")|\(key)"
                let fingerprint = "\(method) \(request.uri.path)?\(request.uri.query ?? "")#\(SHA256.hash(data: call.body).description)"
                let outcome = try await world.idempotency.run(key: scope, fingerprint: fingerprint) {
                    await Self.stored(from: handler, call)
                }
                switch outcome {
                case .mismatch:
                    throw DiaryError.invalid(
                        "Idempotency-Key", .notAllowed, "the Idempotency-Key was already used for a different request")
                case .response(let stored, let replayed):
                    return dropResponse ? .drop : .complete(stored, replayed: replayed)
                }
            }
            let reply: Reply
            if let verified {
                reply = try await verified.checkingTheSession { try await handler(call) }
            } else {
                reply = try await handler(call)
            }
            if dropResponse { return .drop }
            if case .response(let response) = reply { return .stream(response) }
            return .complete(Self.stored(reply), replayed: false)
        } catch {
            // A request whose session has ended hears that, whatever else went wrong (a body refused, say).
            if let verified {
                do {
                    try await verified.settleTheSession()
                } catch {
                    return .complete(Self.stored(DiaryError.wrapping(error)), replayed: false)
                }
            }
            return .complete(Self.stored(DiaryError.wrapping(error)), replayed: false)
        }
    }
}
