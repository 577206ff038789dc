import DiarySDK
import Foundation
import HTTPTypes
import Hummingbird

/// Limits the routes that reveal whether an email is registered or let a password be guessed —
/// `POST /v1/auth/sign-up` (its conflict names a taken email), `POST /v1/auth/sign-in` and
/// `GET /v1/availability/email` — per client address, one bucket for the three, answering `429` with
/// `Retry-After` and a problem document once a client's bucket is empty. Runs before routing, so a refused request
/// does no work at all (no password hash, no idempotency record).
///
/// In test mode the key also holds the `X-Diary-World` header, so worlds on one loopback address do not share a
/// bucket; in production the header is ignored and cannot be used to get a fresh bucket.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = DiaryRequestContext

    /// The limited routes, as `METHOD path`.
    static let limitedRoutes: Set<String> = [
        "POST /v1/auth/sign-up", "POST /v1/auth/sign-in", "GET /v1/availability/email",
    ]

    let limiter: RateLimiter
    let testMode: Bool

    func handle(
        _ request: Request, context: DiaryRequestContext, next: (Request, DiaryRequestContext) async throws -> Response
    ) async throws -> Response {
        guard Self.limitedRoutes.contains("\(request.method.rawValue) \(request.uri.path)") else {
            return try await next(request, context)
        }
        var key = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if testMode, let world = request.headers[HTTPField.Name("X-Diary-World")!] { key += "|" + world }
        if let wait = limiter.take(key) {
            let seconds = max(1, Int(wait.rounded(.up)))
            return DiaryAPI.problem(
                DiaryError(
                    .rateLimited, "too many attempts from this address; try again in \(seconds) s",
                    retryAfter: TimeInterval(seconds)))
        }
        return try await next(request, context)
    }
}
