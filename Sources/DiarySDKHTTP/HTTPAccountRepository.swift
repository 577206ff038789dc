import DiarySDK
import Foundation

/// Accounts and the session over HTTP: `/v1/auth/*`, `/v1/me`, `/v1/availability/*`, `/v1/me/devices`.
struct HTTPAccountRepository: AccountRepository {
    let client: HTTPClient

    func signUp(_ request: SignUpRequest) async throws -> User {
        var request = request
        if request.timeZoneIdentifier == nil { request.timeZoneIdentifier = client.configuration.timeZone.identifier }
        let reply = try await client.send(
            try client.request("POST", "/v1/auth/sign-up", json: request, authenticated: false), as: AuthReply.self)
        return try await start(reply)
    }

    func signIn(_ credentials: Credentials) async throws -> User {
        let body = SignInBody(credentials: credentials, timeZoneIdentifier: client.configuration.timeZone.identifier)
        let reply = try await client.send(
            try client.request("POST", "/v1/auth/sign-in", json: body, authenticated: false), as: AuthReply.self)
        return try await start(reply)
    }

    func signOut() async throws {
        guard let session = try await client.sessions.current() else { return }
        // Tell the server to end the session and unregister this device's push tokens. It is sent as an ordinary
        // authenticated request while the session is still here, so an expired access token is refreshed first
        // (the server would refuse the old one and never end the session). The device is signed out whatever the
        // server answers.
        var tokens = session.deviceTokens ?? []
        if let configured = client.configuration.deviceToken?.token, !tokens.contains(configured) {
            tokens.append(configured)
        }
        var request = try client.request("POST", "/v1/auth/sign-out", json: SignOutBody(deviceTokens: tokens))
        request.deduplicate = false
        await client.sessions.beginUserSignOut()
        _ = try? await client.send(request)
        try await client.sessions.replace(with: nil, announcing: .signedOut(.userSignedOut))
    }

    func withdraw() async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/me"))
        try await client.sessions.replace(with: nil, announcing: .signedOut(.accountWithdrawn))
    }

    func restoreSession() async throws -> User? {
        guard try await client.sessions.current() != nil else { return nil }
        let generation = await client.sessions.currentGeneration
        do {
            let user = try await client.send(HTTPRequest("GET", "/v1/me"), as: User.self)
            await client.sessions.announceRestored(user, generation: generation)
            return user
        } catch let error as DiaryError where error.code == .unauthenticated {
            try await client.sessions.replace(with: nil, announcing: .signedOut(.sessionExpired))
            return nil
        }
    }

    func authStates() -> AsyncStream<AuthStateChange> {
        client.sessions.authStates.subscribe()
    }

    func currentUser() async throws -> User? {
        guard try await client.sessions.current() != nil else { return nil }
        do {
            return try await client.send(HTTPRequest("GET", "/v1/me"), as: User.self)
        } catch let error as DiaryError where error.code == .unauthenticated {
            return nil
        }
    }

    func isNicknameAvailable(_ nickname: String) async throws -> Bool {
        try await client.send(
            HTTPRequest("GET", "/v1/availability/nickname", query: [("value", nickname)], authenticated: false),
            as: Wrapped<Bool>.self
        ).value
    }

    func isEmailAvailable(_ email: String) async throws -> Bool {
        try await client.send(
            HTTPRequest("GET", "/v1/availability/email", query: [("value", email)], authenticated: false),
            as: Wrapped<Bool>.self
        ).value
    }

    func registerDeviceToken(_ token: DeviceToken) async throws {
        _ = try await client.send(try client.request("PUT", "/v1/me/devices", json: token))
        try await client.sessions.remember(deviceToken: token.token.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func deviceTokens() async throws -> [DeviceToken] {
        try await client.send(HTTPRequest("GET", "/v1/me/devices"), as: [DeviceToken].self)
    }

    /// Keeps the new session and registers the device's push token again (best effort: a failed registration does
    /// not undo the sign-in).
    private func start(_ reply: AuthReply) async throws -> User {
        guard let user = reply.user else { throw DiaryError(.server, "the server's sign-in answer has no user") }
        try await client.sessions.replace(with: reply.session(userID: user.id), announcing: .signedIn(user))
        if let deviceToken = client.configuration.deviceToken {
            try? await registerDeviceToken(deviceToken)
        }
        return user
    }
}
