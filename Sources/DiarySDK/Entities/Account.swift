import Foundation

/// How a user proves who they are.
///
/// On the wire: `{"type": "password", "email": "…", "password": "…"}` or
/// `{"type": "identityToken", "provider": "apple", "token": "…"}`.
public enum Credentials: Hashable, Sendable {
    /// Email and password.
    case password(email: String, password: String)
    /// An identity token from an external provider, such as Sign in with Apple.
    case identityToken(provider: String, token: String)
}

extension Credentials: Codable {
    private enum CodingKeys: String, CodingKey {
        case type = "type"
        case email = "email"
        case password = "password"
        case provider = "provider"
        case token = "token"
    }

    private enum Kind: String, CaseIterable {
        case password = "password"
        case identityToken = "identityToken"
    }

    /// Decodes the object described above.
    /// - Throws: `DecodingError` when `type` is missing or names no kind of credentials, or the kind's members are
    ///   missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try WireKind.decode(Kind.self, of: Credentials.self, from: container, forKey: .type) {
        case .password:
            self = .password(
                email: try container.decode(String.self, forKey: .email),
                password: try container.decode(String.self, forKey: .password))
        case .identityToken:
            self = .identityToken(
                provider: try container.decode(String.self, forKey: .provider),
                token: try container.decode(String.self, forKey: .token))
        }
    }

    /// Encodes the object described above.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .password(let email, let password):
            try container.encode(Kind.password.rawValue, forKey: .type)
            try container.encode(email, forKey: .email)
            try container.encode(password, forKey: .password)
        case .identityToken(let provider, let token):
            try container.encode(Kind.identityToken.rawValue, forKey: .type)
            try container.encode(provider, forKey: .provider)
            try container.encode(token, forKey: .token)
        }
    }
}

/// What a new user fills in to sign up.
public struct SignUpRequest: Hashable, Sendable, Codable {
    /// The sign-in email.
    public var email: String
    /// The password (at least ``Validation/minimumPasswordLength`` characters).
    public var password: String
    /// The nickname.
    public var nickname: String
    /// The time zone the new account counts its days in (an IANA identifier such as `Asia/Seoul`); `nil` uses the
    /// backend's default: the device's for local backends, `HTTPBackend`'s configured zone over HTTP.
    public var timeZoneIdentifier: String?

    /// Creates a request.
    /// - Parameters:
    ///   - email: The sign-in email.
    ///   - password: The password.
    ///   - nickname: The nickname.
    ///   - timeZoneIdentifier: The new account's time zone; the backend's default when `nil`.
    public init(email: String, password: String, nickname: String, timeZoneIdentifier: String? = nil) {
        self.email = email
        self.password = password
        self.nickname = nickname
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case email = "email"
        case password = "password"
        case nickname = "nickname"
        case timeZoneIdentifier = "timeZoneIdentifier"
    }
}

/// Changes to the signed-in user's profile: `nil` fields are left as they are.
public struct ProfileEdit: Hashable, Sendable, Codable {
    /// A new nickname.
    public var nickname: String?
    /// A new bio.
    public var bio: String?
    /// A new avatar; `.some(nil)` removes it.
    public var avatar: ImageReference??

    /// Creates an edit.
    public init(nickname: String? = nil, bio: String? = nil, avatar: ImageReference?? = nil) {
        self.nickname = nickname
        self.bio = bio
        self.avatar = avatar
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case nickname = "nickname"
        case bio = "bio"
        case avatar = "avatar"
    }
}

/// A signed-in session as a ``SessionStore`` keeps it, so the next launch can sign in automatically.
///
/// For local backends the token is an opaque random string the store issued; for HTTP it is the access and refresh
/// token pair. Treat it as a secret: it is never logged.
public struct StoredSession: Hashable, Sendable, Codable {
    /// The user.
    public var userID: User.ID
    /// The access token (or the local session token).
    public var accessToken: String
    /// The refresh token, for backends that have one.
    public var refreshToken: String?
    /// When the access token expires, if it does.
    public var expiresAt: Date?
    /// The push tokens this device registered during the session; signing out unregisters them.
    public var deviceTokens: [String]?

    /// Creates a stored session.
    /// - Parameters:
    ///   - userID: The user.
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if any.
    ///   - expiresAt: When the access token expires, if it does.
    ///   - deviceTokens: The push tokens registered in this session.
    public init(
        userID: User.ID, accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil,
        deviceTokens: [String]? = nil
    ) {
        self.userID = userID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.deviceTokens = deviceTokens
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case userID = "userID"
        case accessToken = "accessToken"
        case refreshToken = "refreshToken"
        case expiresAt = "expiresAt"
        case deviceTokens = "deviceTokens"
    }
}
