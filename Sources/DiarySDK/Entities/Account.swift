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

    /// Creates a request.
    public init(email: String, password: String, nickname: String) {
        self.email = email
        self.password = password
        self.nickname = nickname
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

    /// Creates a stored session.
    public init(userID: User.ID, accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil) {
        self.userID = userID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }
}
