@_spi(Storage) import DiaryPostgres
import Crypto
import DiarySDK
import Foundation

/// Issues and checks the server's HS256 JSON Web Tokens: a short-lived access token and a long-lived refresh token
/// per session, with refresh-token rotation and reuse detection.
///
/// A refresh is idempotent for a short grace period: presenting the refresh token that was just rotated away
/// answers the same new pair again instead of ending the session, so a client whose refresh answer was lost (a
/// dropped connection) keeps its session. Presenting any older refresh token, or the previous one after the grace
/// period or after the new one was used, is reuse and ends the session.
///
/// Tokens are decoded strictly: base64url without padding, in its one canonical spelling (the unused low bits of
/// the last character are zero), so a token differing in any character is refused.
///
/// Token times use the real clock, never a world's test clock, so moving a test clock never expires a session.
///
/// Sessions live in a ``ServerSessionStore``: in memory, in the data directory, or in the database, where every
/// process sharing the signing key honours them.
final class TokenService: Sendable {
    struct Claims: Codable, Sendable {
        var sub: String
        var sid: String
        var typ: String
        var jti: String
        var iat: Int
        var exp: Int
    }

    struct Pair: Codable, Sendable, Equatable {
        var accessToken: String
        var refreshToken: String
        var expiresAt: Date
        var tokenType = "Bearer"
    }

    /// The error for an expired access token; its problem document carries `"hint": "token_expired"`.
    static let expiredAccess = DiaryError(.unauthenticated, "the access token has expired")

    private let keys: SigningKeySet
    private let accessLifetime: TimeInterval
    private let refreshLifetime: TimeInterval
    private let refreshGracePeriod: TimeInterval
    private let sessions: any ServerSessionStore
    /// Access tokens whose form and signature were checked, with their claims. Checking them (base64url, HMAC,
    /// JSON) cost more than the rest of a small request, and a client sends one access token with every request
    /// until it expires. The keys never change while the process runs, so a token verified once stays verified;
    /// its expiry and its session are still checked at every request. Emptied when full.
    private let verifiedAccess = Protected([String: Claims]())
    static let verifiedAccessCapacity = 8_192
    private static let ended = DiaryError(.unauthenticated, "the session has ended; sign in again")

    /// A token service signing with the key set's first key and checking with the key its token names.
    init(keys: SigningKeySet, options: ServerOptions, sessions: any ServerSessionStore = InMemoryServerSessionStore()) {
        self.keys = keys
        self.accessLifetime = options.accessTokenLifetime
        self.refreshLifetime = options.refreshTokenLifetime
        self.refreshGracePeriod = options.refreshGracePeriod
        self.sessions = sessions
    }

    /// Starts a session.
    /// - Throws: When the session store cannot save it.
    func issue(for userID: User.ID) async throws -> Pair {
        let sid = UUID().uuidString.lowercased()
        let jti = UUID().uuidString.lowercased()
        let (pair, accessJTI) = pair(userID: userID, sid: sid, refreshJTI: jti)
        try await sessions.create(
            ServerSession(userID: userID, refreshJTI: jti, accessJTI: accessJTI, refreshedAt: Date()), id: sid)
        return pair
    }

    /// An access token whose signature and expiry were verified, and whose session either was checked too or is
    /// checked with the request's storage (``checkingTheSession(_:)``).
    struct VerifiedAccess: Sendable {
        var userID: User.ID
        var sid: String
        /// The session check still to settle: carried by the request's first storage transaction.
        var sessionCheck: PostgresDocumentCheck?

        /// Settles the session check now unless something has: what a request that failed before its handler ran
        /// (a refused body, say) does, so that an ended session is what it hears.
        /// - Throws: `.unauthenticated` when the session has ended, or the database's error.
        func settleTheSession() async throws {
            try await sessionCheck?.settle()
        }

        /// Runs `body` with the session check pending, then settles it if no storage transaction did: `body`'s
        /// result is returned, or its error thrown, only when the session is current; otherwise the check's error.
        func checkingTheSession<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
            guard let sessionCheck else { return try await body() }
            let result: Result
            do {
                result = try await PostgresDocumentCheck.$pending.withValue(sessionCheck) { try await body() }
            } catch {
                try await sessionCheck.settle()
                throw error
            }
            try await sessionCheck.settle()
            return result
        }
    }

    /// The user an access token speaks for.
    /// - Parameter deferringTheSessionCheck: Leave the session check to the request's storage when the session
    ///   store can (``ServerSessionStore/deferredStanding(of:userID:accessJTI:verify:)``); the caller then runs the
    ///   request through ``VerifiedAccess/checkingTheSession(_:)``.
    /// - Throws: `.unauthenticated` for a malformed, forged, expired or revoked token.
    func verifyAccess(_ token: String, deferringTheSessionCheck: Bool) async throws -> VerifiedAccess {
        let claims = try verifiedAccessClaims(token)
        guard let userID = User.ID(claims.sub) else { throw Self.ended }
        if deferringTheSessionCheck,
            let check = sessions.deferredStanding(
                of: claims.sid, userID: userID, accessJTI: claims.jti, verify: { try Self.require($0) })
        {
            return VerifiedAccess(userID: userID, sid: claims.sid, sessionCheck: check)
        }
        try Self.require(try await sessions.standing(of: claims.sid, userID: userID, accessJTI: claims.jti))
        return VerifiedAccess(userID: userID, sid: claims.sid)
    }

    /// The user an access token speaks for, its session checked.
    /// - Throws: `.unauthenticated` for a malformed, forged, expired or revoked token.
    func verifyAccess(_ token: String) async throws -> (userID: User.ID, sid: String) {
        let verified = try await verifyAccess(token, deferringTheSessionCheck: false)
        return (verified.userID, verified.sid)
    }

    /// Throws unless a session stands for the token.
    private static func require(_ standing: ServerSessionStanding) throws {
        switch standing {
        case .current: return
        case .accessExpired: throw Self.expiredAccess
        case .ended: throw Self.ended
        }
    }

    /// The claims of an access token whose signature and expiry hold (a cache spares verifying one seen before).
    private func verifiedAccessClaims(_ token: String) throws -> Claims {
        let claims: Claims
        if let known = verifiedAccess.withLock({ $0[token] }) {
            guard TimeInterval(known.exp) > Date().timeIntervalSince1970 else { throw Self.expiredAccess }
            claims = known
        } else {
            claims = try verify(token, type: "access")
            verifiedAccess.withLock { verified in
                if verified.count >= Self.verifiedAccessCapacity { verified.removeAll(keepingCapacity: true) }
                verified[token] = claims
            }
        }
        return claims
    }

    /// Rotates a refresh token into a new pair. Presenting the token rotated away last, within the grace period,
    /// answers the same pair again; presenting any other already-rotated refresh token ends the session.
    ///
    /// The check and the rotation are one atomic store update, so of two refreshes with the same token (in one
    /// process or in two sharing the store) one rotates and the other replays its pair.
    /// - Throws: `.unauthenticated` when the token is neither the session's current refresh token nor the one just
    ///   rotated away.
    func refresh(_ token: String) async throws -> Pair {
        let claims = try verify(token, type: "refresh")
        let now = Date()
        let grace = refreshGracePeriod
        let outcome: Result<Pair, DiaryError> = try await sessions.update(claims.sid) { [self] current in
            guard var session = current else { return (.keep, .failure(Self.ended)) }
            if session.refreshJTI == claims.jti {
                let newJTI = UUID().uuidString.lowercased()
                let issued = Int(now.timeIntervalSince1970)
                let (fresh, accessJTI) = pair(
                    userID: session.userID, sid: claims.sid, refreshJTI: newJTI, issued: issued)
                session.previousRefreshJTI = claims.jti
                session.refreshJTI = newJTI
                session.accessJTI = accessJTI
                session.rotatedAt = now
                session.rotationIssuedAt = issued
                session.refreshedAt = now
                return (.save(session), .success(fresh))
            }
            if session.previousRefreshJTI == claims.jti, now.timeIntervalSince(session.rotatedAt) <= grace,
                let issued = session.rotationIssuedAt
            {
                // The same pair again, signed anew from what the session keeps (no token is stored at rest).
                let (again, _) = pair(
                    userID: session.userID, sid: claims.sid, refreshJTI: session.refreshJTI,
                    accessJTI: session.accessJTI, issued: issued)
                return (.keep, .success(again))
            }
            return (.remove, .failure(DiaryError(.unauthenticated, "the refresh token was already used; the session has ended")))
        }
        return try outcome.get()
    }

    /// Treats every access token issued so far as expired (test mode), so a test can meet expiry without waiting.
    func expireAccessTokens() async throws {
        try await sessions.updateAll { session in session.expiredAccessJTIs.insert(session.accessJTI) }
    }

    /// Ends the sessions whose refresh token has expired by `now` (maintenance).
    /// - Returns: How many ended.
    func removeExpiredSessions(now: Date) async throws -> Int {
        try await sessions.removeSessions(refreshedBefore: now.addingTimeInterval(-refreshLifetime))
    }

    /// Ends one session.
    func revoke(session sid: String) async throws {
        try await sessions.remove(sid)
    }

    /// Ends every session of a user.
    func revokeAll(of userID: User.ID) async throws {
        try await sessions.removeAll(of: userID)
    }

    /// A token service with one key, under ``SigningKeySet/defaultKeyID``.
    convenience init(key: [UInt8], options: ServerOptions, sessions: any ServerSessionStore = InMemoryServerSessionStore()) {
        self.init(keys: SigningKeySet(secret: key), options: options, sessions: sessions)
    }

    // MARK: - JWT

    /// A signed pair for a session, and its access token's id.
    /// A signed pair; the same arguments give the same tokens (HS256 signs deterministically), which is how a
    /// refresh replayed within the grace period answers the pair it answered before.
    private func pair(
        userID: User.ID, sid: String, refreshJTI: String, accessJTI: String = UUID().uuidString.lowercased(),
        issued: Int = Int(Date().timeIntervalSince1970)
    ) -> (Pair, accessJTI: String) {
        let sub = userID.description
        let access = Claims(
            sub: sub, sid: sid, typ: "access", jti: accessJTI, iat: issued,
            exp: issued + Int(accessLifetime))
        let refresh = Claims(
            sub: sub, sid: sid, typ: "refresh", jti: refreshJTI, iat: issued, exp: issued + Int(refreshLifetime))
        let pair = Pair(
            accessToken: sign(access), refreshToken: sign(refresh),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(access.exp)))
        return (pair, access.jti)
    }

    /// A token for the claims, signed with the signing key and naming it in the header's `kid`.
    func sign(_ claims: Claims) -> String {
        let signing = keys.signing
        // The id is letters, digits, '-', '_' and '.' only (SigningKeySet checks), so it needs no JSON escaping.
        let header = Self.base64URL(Data(#"{"alg":"HS256","kid":"\#(signing.id)","typ":"JWT"}"#.utf8))
        // Sorted keys: the same claims give the same token in any process (a replayed refresh signs its pair again).
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = Self.base64URL((try? encoder.encode(claims)) ?? Data())
        let input = header + "." + payload
        let signature = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: signing.secret))
        return input + "." + Self.base64URL(Data(signature))
    }

    /// The claims of a token this service signed with a key it still lists (the header's `kid`; a token without
    /// one is checked with the ``SigningKeySet/defaultKeyID`` key).
    private func verify(_ token: String, type: String) throws -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        let invalid = DiaryError(.unauthenticated, "the token is not valid")
        guard parts.count == 3, let headerData = Self.data(base64URL: String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            header["alg"] as? String == "HS256",
            header["kid"] == nil || header["kid"] is String,
            let key = keys.key(id: header["kid"] as? String),
            let signature = Self.data(base64URL: String(parts[2])),
            HMAC<SHA256>.isValidAuthenticationCode(
                signature, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: SymmetricKey(data: key.secret)),
            let payload = Self.data(base64URL: String(parts[1])),
            let claims = try? JSONDecoder().decode(Claims.self, from: payload), claims.typ == type
        else { throw invalid }
        guard TimeInterval(claims.exp) > Date().timeIntervalSince1970 else {
            throw type == "access" ? Self.expiredAccess : DiaryError(.unauthenticated, "the refresh token has expired")
        }
        return claims
    }

    static func base64URL(_ data: Data) -> String {
        var bytes = Array(data.base64EncodedData())
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes base64url strictly: only the URL-safe alphabet, no padding, and only the canonical spelling (the
    /// unused bits of the last character zero), so each byte string has exactly one accepted text.
    static func data(base64URL text: String) -> Data? {
        var bytes = Array(text.utf8)
        guard bytes.count % 4 != 1 else { return nil }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "-"): bytes[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): bytes[index] = UInt8(ascii: "/")
            default: return nil
            }
        }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(bytes)), base64URL(data) == text else { return nil }
        return data
    }
}
