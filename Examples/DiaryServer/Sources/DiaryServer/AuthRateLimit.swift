import DiarySDK
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The rate limit on the routes that reveal whether an email is registered or let a password be guessed —
/// `POST /v1/auth/sign-up` (its conflict names a taken email), `POST /v1/auth/sign-in` and
/// `GET /v1/availability/email` — one bucket per client for the three, answering `429` with `Retry-After` and a
/// problem document once the bucket is empty.
///
/// It is taken by the route's own dispatch, after routing, so every spelling of a path that reaches the handler
/// (`/v1/auth/sign-in/`, `//v1/auth/sign-in`) draws on the same bucket, and before the token, the body or the
/// idempotency store are looked at, so a refused request does no work at all.
///
/// A client is its address (behind a trusted proxy, the address the proxy names: ``ClientAddress``); IPv6 clients
/// are keyed by their /64 prefix, the block one subscriber usually holds, so one host cannot draw on 2⁶⁴ buckets. In test mode the key also holds the `X-Diary-World` header, so worlds on one
/// loopback address do not share a bucket; in production the header is ignored and cannot buy a fresh bucket.
///
/// The buckets live where ``ClientRateLimiter`` keeps them: in memory for the file store, in the database on
/// PostgreSQL, so instances on one database share a client's budget. When the database cannot be reached, the
/// request is refused with that error (`503`) rather than let through unlimited.
struct AuthRateLimit: Sendable {
    let limiter: any ClientRateLimiter
    let testMode: Bool
    /// The proxies whose `X-Forwarded-For` names the client (``ClientAddress``).
    var trustedProxies: [AddressBlock] = []

    /// The refusal for a request whose client has no requests left, or `nil` when it may go ahead.
    func refusal(for request: Request, _ context: DiaryRequestContext) async -> DiaryError? {
        let client = ClientAddress.resolve(
            peer: context.channel.remoteAddress, forwardedFor: request.headers[values: HTTPField.Name("X-Forwarded-For")!],
            trusted: trustedProxies)
        var key = Self.clientKey(client)
        if testMode, let world = request.headers[HTTPField.Name("X-Diary-World")!] { key += "|" + world }
        let wait: TimeInterval?
        do {
            wait = try await limiter.take(from: key)
        } catch {
            return DiaryError.wrapping(error)
        }
        guard let wait else { return nil }
        let seconds = max(1, Int(wait.rounded(.up)))
        return DiaryError(
            .rateLimited, "too many attempts from this address; try again in \(seconds) s",
            retryAfter: TimeInterval(seconds))
    }

    /// The bucket key of a client address: an IPv4 address whole, an IPv6 address by its /64 prefix.
    static func clientKey(_ address: SocketAddress?) -> String {
        switch address {
        case .v6(let v6):
            let prefix = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0.prefix(8)) }
            if prefix.prefix(6).allSatisfy({ $0 == 0 }) || prefix.isEmpty {
                // ::1, ::ffff:a.b.c.d and friends live in the first /64: key them whole.
                return address?.ipAddress ?? "unknown"
            }
            return prefix.map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
        case .some(let other): return other.ipAddress ?? "unknown"
        case .none: return "unknown"
        }
    }
}
