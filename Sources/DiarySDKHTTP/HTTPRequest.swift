import Foundation

/// One logical call to the server, before authentication and retries are applied.
struct HTTPRequest: Sendable {
    var method: String
    var path: String
    var query: [(String, String)] = []
    var body: Data?
    var contentType: String?
    /// Whether the call needs the signed-in user's access token.
    var authenticated = true
    /// The idempotency key, the same for every attempt of this call.
    var idempotencyKey: String?
    /// A token to send instead of the session's (sign-out sends the token it just cleared).
    var bearerOverride: String?
    /// Called as the body is sent (uploads): bytes sent so far and the total.
    var progress: (@Sendable (Int64, Int64) -> Void)?
    /// Whether identical calls in flight at the same time may share one request (see ``HTTPClient/send(_:)``).
    var deduplicate = true

    init(_ method: String, _ path: String, query: [(String, String)] = [], authenticated: Bool = true) {
        self.method = method
        self.path = path
        self.query = query
        self.authenticated = authenticated
        if method != "GET" { idempotencyKey = HTTPBackend.chosenIdempotencyKey ?? UUID().uuidString.lowercased() }
    }

    /// Whether the request may be sent again after a failure.
    var isIdempotent: Bool {
        ["GET", "HEAD", "PUT", "DELETE"].contains(method) || idempotencyKey != nil
    }

    /// What identifies identical calls: method, path, encoded query, body, and how the call authenticates. The
    /// caller adds who is signed in (``HTTPClient/send(_:)``).
    var deduplicationKey: String {
        var key = method + " " + path + "?" + encodedQuery + (authenticated ? " auth" : " anon")
        if let bearerOverride { key += " bearer:" + bearerOverride }
        if let body { key += " #" + String(body.count) + ":" + body.base64EncodedString() }
        return key
    }

    /// The query string, percent-encoded strictly (only unreserved characters stay as they are).
    var encodedQuery: String {
        query.map { Self.percentEncoded($0.0) + "=" + Self.percentEncoded($0.1) }.joined(separator: "&")
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters, uppercase hex, byte by byte (a
    /// `CharacterSet` built per request was a measurable cost on Linux).
    static func percentEncoded(_ text: String) -> String {
        let hex: StaticString = "0123456789ABCDEF"
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hex.utf8Start[Int(byte >> 4)])
                output.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
