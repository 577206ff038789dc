import Crypto
import DiarySDK
import Foundation

/// Issues and checks the server's HS256 JSON Web Tokens: a short-lived access token and a long-lived refresh token
/// per session, with refresh-token rotation and reuse detection.
///
/// Token times use the real clock, never a world's test clock, so moving a test clock never expires a session.
final class TokenService: Sendable {
    struct Claims: Codable, Sendable {
        var sub: String
        var sid: String
        var typ: String
        var jti: String
        var iat: Int
        var exp: Int
    }

    struct Pair: Codable, Sendable {
        var accessToken: String
        var refreshToken: String
        var expiresAt: Date
        var tokenType = "Bearer"
    }

    private struct Session {
        var userID: User.ID
        var refreshJTI: String
        var accessJTI = ""
        /// Access tokens a test declared expired (`POST /v1/_test/expire-access-tokens`).
        var expiredAccessJTIs: Set<String> = []
    }

    /// The error for an expired access token; its problem document carries `"hint": "token_expired"`.
    static let expiredAccess = DiaryError(.unauthenticated, "the access token has expired")

    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    private let accessLifetime: TimeInterval
    private let refreshLifetime: TimeInterval
    private let sessions = Protected<[String: Session]>([:])

    init(key: [UInt8], options: ServerOptions) {
        self.keyBytes = key
        self.accessLifetime = options.accessTokenLifetime
        self.refreshLifetime = options.refreshTokenLifetime
    }

    /// Starts a session.
    func issue(for userID: User.ID) -> Pair {
        let sid = UUID().uuidString.lowercased()
        let jti = UUID().uuidString.lowercased()
        sessions.withLock { $0[sid] = Session(userID: userID, refreshJTI: jti) }
        return pair(userID: userID, sid: sid, refreshJTI: jti)
    }

    /// The user an access token speaks for.
    /// - Throws: `.unauthenticated` for a malformed, forged, expired or revoked token.
    func verifyAccess(_ token: String) throws -> (userID: User.ID, sid: String) {
        let claims = try verify(token, type: "access")
        guard let session = sessions.current[claims.sid], session.userID.rawValue.uuidString.lowercased() == claims.sub
        else { throw DiaryError(.unauthenticated, "the session has ended; sign in again") }
        if session.expiredAccessJTIs.contains(claims.jti) { throw Self.expiredAccess }
        return (session.userID, claims.sid)
    }

    /// Rotates a refresh token into a new pair. Presenting an already-rotated refresh token ends the session.
    /// - Throws: `.unauthenticated` when the token is not the session's current refresh token.
    func refresh(_ token: String) throws -> Pair {
        let claims = try verify(token, type: "refresh")
        let newJTI = UUID().uuidString.lowercased()
        let userID: User.ID = try sessions.withLock { table in
            guard let session = table[claims.sid] else { throw DiaryError(.unauthenticated, "the session has ended; sign in again") }
            guard session.refreshJTI == claims.jti else {
                table[claims.sid] = nil
                throw DiaryError(.unauthenticated, "the refresh token was already used; the session has ended")
            }
            table[claims.sid]?.refreshJTI = newJTI
            return session.userID
        }
        return pair(userID: userID, sid: claims.sid, refreshJTI: newJTI)
    }

    /// Treats every access token issued so far as expired (test mode), so a test can meet expiry without waiting.
    func expireAccessTokens() {
        sessions.withLock { table in
            for (sid, session) in table { table[sid]?.expiredAccessJTIs.insert(session.accessJTI) }
        }
    }

    /// Ends one session.
    func revoke(session sid: String) {
        _ = sessions.withLock { $0.removeValue(forKey: sid) }
    }

    /// Ends every session of a user.
    func revokeAll(of userID: User.ID) {
        sessions.withLock { table in table = table.filter { $0.value.userID != userID } }
    }

    // MARK: - JWT

    private func pair(userID: User.ID, sid: String, refreshJTI: String) -> Pair {
        let now = Date()
        let issued = Int(now.timeIntervalSince1970)
        let sub = userID.rawValue.uuidString.lowercased()
        let access = Claims(
            sub: sub, sid: sid, typ: "access", jti: UUID().uuidString.lowercased(), iat: issued,
            exp: issued + Int(accessLifetime))
        sessions.withLock { $0[sid]?.accessJTI = access.jti }
        let refresh = Claims(
            sub: sub, sid: sid, typ: "refresh", jti: refreshJTI, iat: issued, exp: issued + Int(refreshLifetime))
        return Pair(
            accessToken: sign(access), refreshToken: sign(refresh),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(access.exp)))
    }

    func sign(_ claims: Claims) -> String {
        let header = Self.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = Self.base64URL((try? JSONEncoder().encode(claims)) ?? Data())
        let input = header + "." + payload
        let signature = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: key)
        return input + "." + Self.base64URL(Data(signature))
    }

    private func verify(_ token: String, type: String) throws -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        let invalid = DiaryError(.unauthenticated, "the token is not valid")
        guard parts.count == 3, let headerData = Self.data(base64URL: String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            header["alg"] as? String == "HS256",
            let signature = Self.data(base64URL: String(parts[2])),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: key),
            let payload = Self.data(base64URL: String(parts[1])),
            let claims = try? JSONDecoder().decode(Claims.self, from: payload), claims.typ == type
        else { throw invalid }
        guard TimeInterval(claims.exp) > Date().timeIntervalSince1970 else {
            throw type == "access" ? Self.expiredAccess : DiaryError(.unauthenticated, "the refresh token has expired")
        }
        return claims
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
