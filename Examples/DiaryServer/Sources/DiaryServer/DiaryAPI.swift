import Crypto
import DiarySDK
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The REST API of docs/openapi.yaml: route registration and the per-request pipeline (world, faults,
/// authentication, idempotency, errors).
struct DiaryAPI: Sendable {
    let registry: WorldRegistry
    let options: ServerOptions

    typealias Handler = @Sendable (Call) async throws -> Reply

    /// Registers one route.
    func route(
        _ router: Router<DiaryRequestContext>, _ method: HTTPRequest.Method, _ path: RouterPath, auth: Bool = true,
        _ handler: @escaping Handler
    ) {
        let template = path.description
        router.on(path, method: method) { request, context in
            await dispatch(request, context, template: template, auth: auth, handler)
        }
    }

    private func dispatch(
        _ request: Request, _ context: DiaryRequestContext, template: String, auth: Bool, _ handler: @escaping Handler
    ) async -> Response {
        var request = request
        let worldName = request.headers[HTTPField.Name("X-Diary-World")!]
        guard let world = registry.world(named: worldName) else {
            return Self.problem(DiaryError.notFound("world \(worldName ?? "")"))
        }
        let method = request.method.rawValue
        var malformed = false
        var dropResponse = false
        if options.testMode, let fault = world.faults.take(method: method, path: request.uri.path) {
            switch fault.action {
            case .status:
                let status = fault.status ?? 500
                let code: DiaryError.Code = status == 429 ? .rateLimited : status == 503 ? .unavailable : .server
                var response = Self.problem(
                    DiaryError(code, "injected fault \(status)", retryAfter: fault.retryAfter.flatMap(Double.init)))
                response.status = .init(code: status)
                if let retryAfter = fault.retryAfter { response.headers[.retryAfter] = retryAfter }
                return response
            case .delay:
                try? await Task.sleep(nanoseconds: UInt64((fault.delay ?? 1) * 1_000_000_000))
            case .drop:
                context.channel.close(promise: nil)
                return Response(status: .internalServerError)
            case .malformed:
                malformed = true
            case .dropResponse:
                dropResponse = true
            }
        }
        do {
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            var userID: User.ID?
            var sessionID: String?
            if auth {
                guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
                    throw DiaryError(.unauthenticated, "this route needs an Authorization: Bearer access token")
                }
                let verified = try world.tokens.verifyAccess(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
                userID = verified.userID
                sessionID = verified.sid
            }
            world.stats.withLock { $0.requests["\(method) \(template)", default: 0] += 1 }
            let call = Call(
                request: request, context: context, world: world, userID: userID, sessionID: sessionID,
                body: Data(body.readableBytesView), testMode: options.testMode)
            if let key = request.headers[HTTPField.Name("Idempotency-Key")!], request.method != .get {
                let scope = "\(userID?.rawValue.uuidString ?? "anonymous")|\(key)"
                let fingerprint = "\(method) \(request.uri.path)?\(request.uri.query ?? "")#\(SHA256.hash(data: call.body).description)"
                let outcome = await world.idempotency.run(key: scope, fingerprint: fingerprint) {
                    await Self.stored(from: handler, call)
                }
                switch outcome {
                case .mismatch:
                    throw DiaryError.invalid(
                        "Idempotency-Key", .notAllowed, "the Idempotency-Key was already used for a different request")
                case .response(let stored, let replayed):
                    if dropResponse {
                        context.channel.close(promise: nil)
                        return Response(status: .internalServerError)
                    }
                    var response = Self.response(stored, malformed: malformed)
                    if replayed { response.headers[HTTPField.Name("Idempotency-Replayed")!] = "true" }
                    return response
                }
            }
            let reply = try await handler(call)
            if dropResponse {
                context.channel.close(promise: nil)
                return Response(status: .internalServerError)
            }
            if case .response(let response) = reply { return response }
            return Self.response(Self.stored(reply), malformed: malformed)
        } catch {
            return Self.problem(DiaryError.wrapping(error))
        }
    }

    private static func stored(from handler: Handler, _ call: Call) async -> IdempotencyStore.Stored {
        do {
            return stored(try await handler(call))
        } catch {
            let problem = Problem(DiaryError.wrapping(error))
            return .init(status: problem.status, contentType: "application/problem+json", body: problem.json)
        }
    }

    private static func stored(_ reply: Reply) -> IdempotencyStore.Stored {
        switch reply {
        case .json(let data, let status): .init(status: status, contentType: "application/json", body: data)
        case .noContent: .init(status: 204, contentType: nil, body: Data())
        case .bytes(let data, let type): .init(status: 200, contentType: type, body: data)
        case .response: .init(status: 500, contentType: nil, body: Data())
        }
    }

    private static func response(_ stored: IdempotencyStore.Stored, malformed: Bool) -> Response {
        var headers = HTTPFields()
        if let type = stored.contentType { headers[.contentType] = type }
        let body = malformed ? Data("{\"items\": [ not json".utf8) : stored.body
        return Response(
            status: .init(code: stored.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The problem response for an error.
    static func problem(_ error: DiaryError) -> Response {
        let problem = Problem(error)
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(Int(retryAfter.rounded(.up))) }
        return Response(
            status: .init(code: problem.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: problem.json)))
    }
}
