import Foundation

/// How a user proves who they are.
public enum Credentials: Hashable, Sendable, Codable {
    /// Email and password.
    case password(email: String, password: String)
    /// An identity token from an external provider, such as Sign in with Apple.
    case identityToken(provider: String, token: String)
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
}
