@_spi(Engine) import DiarySDK
import Foundation
import Hummingbird

/// What sign-up, sign-in and refresh answer: the user (when known) and the token pair.
struct AuthReply: Codable, Sendable {
    var user: User?
    var accessToken: String
    var refreshToken: String
    var expiresAt: Date
    var tokenType: String
}

/// The body of `POST /v1/auth/refresh`.
struct RefreshBody: Codable, Sendable {
    var refreshToken: String
}

/// What `POST /v1/auth/sign-in` carries beside the credentials: the time zone for an account it creates.
struct SignInExtras: Codable, Sendable {
    var timeZoneIdentifier: String?
}

/// The optional body of `POST /v1/auth/sign-out`: the push tokens the device registered, to unregister.
struct SignOutBody: Codable, Sendable {
    var deviceTokens: [String]?
}

extension DiaryAPI {
    func registerAccounts(_ router: Router<DiaryRequestContext>) {
        route(router, .post, "/v1/auth/sign-up", auth: false, body: .credentials, rateLimited: true) { call in
            let user = try await call.engine.createAccount(try call.decode(SignUpRequest.self))
            return try .created(Self.authReply(user: user, await call.world.tokens.issue(for: user.id)))
        }
        route(router, .post, "/v1/auth/sign-in", auth: false, body: .credentials, rateLimited: true) { call in
            let zone = try call.decode(SignInExtras.self).timeZoneIdentifier
            let user = try await call.engine.authenticate(try call.decode(Credentials.self), timeZoneIdentifier: zone)
            return try .ok(Self.authReply(user: user, await call.world.tokens.issue(for: user.id)))
        }
        route(router, .post, "/v1/auth/refresh", auth: false, body: .credentials) { call in
            let pair = try await call.world.tokens.refresh(try call.decode(RefreshBody.self).refreshToken)
            call.world.stats.withLock { $0.refreshes += 1 }
            return try .ok(Self.authReply(user: nil, pair))
        }
        route(router, .post, "/v1/auth/sign-out", body: .credentials) { call in
            // The session ends whatever else happens; the device's push tokens stop going to this user first.
            var failure: (any Error)?
            do {
                let tokens = call.body.isEmpty ? [] : try call.decode(SignOutBody.self).deviceTokens ?? []
                if !tokens.isEmpty { try await call.engine.unregisterDeviceTokens(tokens) }
            } catch {
                failure = error
            }
            if let sid = call.sessionID { try await call.world.tokens.revoke(session: sid) }
            if let failure { throw failure }
            return .noContent
        }
        route(router, .get, "/v1/me") { call in
            guard let user = try await call.engine.currentUser() else { throw DiaryError.notSignedIn }
            return try .ok(user)
        }
        route(router, .delete, "/v1/me") { call in
            let userID = try call.requireUser()
            try await call.engine.withdraw()
            try await call.world.tokens.revokeAll(of: userID)
            return .noContent
        }
        route(router, .get, "/v1/availability/nickname", auth: false) { call in
            try .ok(Wrapped(value: try await call.engine.isNicknameAvailable(call.query("value") ?? "")))
        }
        route(router, .get, "/v1/availability/email", auth: false, rateLimited: true) { call in
            try .ok(Wrapped(value: try await call.engine.isEmailAvailable(call.query("value") ?? "")))
        }
        route(router, .put, "/v1/me/devices") { call in
            try await call.engine.registerDeviceToken(try call.decode(DeviceToken.self))
            return .noContent
        }
        route(router, .get, "/v1/me/devices") { call in
            try .ok(try await call.engine.deviceTokens())
        }
        registerUsers(router)
    }

    private func registerUsers(_ router: Router<DiaryRequestContext>) {
        route(router, .get, "/v1/users/:userID") { call in
            try .ok(try await call.engine.user(try call.id("userID", User.self)))
        }
        route(router, .patch, "/v1/me/profile") { call in
            var edit = try call.decode(ProfileEdit.self)
            if edit.avatar == nil, let object = try? JSONSerialization.jsonObject(with: call.body) as? [String: Any],
                object["avatar"] is NSNull
            {
                edit.avatar = .some(nil)
            }
            return try .ok(try await call.engine.updateProfile(edit))
        }
        route(router, .put, "/v1/me/settings") { call in
            try .ok(try await call.engine.updateSettings(try call.decode(UserSettings.self)))
        }
        route(router, .patch, "/v1/me/settings") { call in
            try .ok(try await call.engine.editSettings(try call.decode(SettingsEdit.self)))
        }
        route(router, .get, "/v1/users") { call in
            try .ok(try await call.engine.searchUsers(call.query("q") ?? "", page: try call.page()))
        }
    }

    static func authReply(user: User?, _ pair: TokenService.Pair) -> AuthReply {
        AuthReply(
            user: user, accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt: pair.expiresAt,
            tokenType: pair.tokenType)
    }
}
