import Crypto
import Foundation
import PostgresNIO

/// What the reference server checks on each request, done directly: the access token's HS256 signature, type and
/// expiry (the same secret, so a token the reference server issued works here), then its session row in
/// `server_sessions` (still there, same user, access token not expired by the test hooks).
struct BareAuth: Sendable {
    struct Claims: Decodable {
        var sub: String
        var sid: String
        var typ: String
        var jti: String
        var exp: Int
    }

    /// The signing secret's bytes (`SymmetricKey` is not `Sendable`; one is made per check, a copy of 32 bytes).
    let secret: [UInt8]
    let client: PostgresClient

    /// The user id (lowercase text) the bearer token in `header` speaks for, `nil` when it does not.
    func userID(authorization header: String?) async throws -> String? {
        guard let header, header.hasPrefix("Bearer ") else { return nil }
        let parts = header.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Self.data(base64URL: parts[2]),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: SymmetricKey(data: secret)),
            let payload = Self.data(base64URL: parts[1]),
            let claims = try? JSONDecoder().decode(Claims.self, from: payload), claims.typ == "access",
            TimeInterval(claims.exp) > Date().timeIntervalSince1970
        else { return nil }
        for try await valid in try await client.execute(SessionCheck(sid: claims.sid, userID: claims.sub, jti: claims.jti)) {
            return valid ? claims.sub : nil
        }
        return nil
    }

    static func data(base64URL text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// The session row: present, owned by the token's user, and this access token not marked expired.
struct SessionCheck: PostgresPreparedStatement {
    static let sql = """
        SELECT owner = $2 AND NOT coalesce(state->'expiredAccessJTIs' ? $3, false) FROM public.server_sessions WHERE id = $1
        """
    typealias Row = Bool

    let sid: String
    let userID: String
    let jti: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(sid)
        bindings.append(userID)
        bindings.append(jti)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool {
        try row.decode(Bool.self)
    }
}
