import DiarySDK
import Foundation

/// The body of `POST /v1/auth/sign-in`: the credentials (`{"password": …}` or `{"identityToken": …}`) and, beside
/// them, the time zone for an account the sign-in creates.
struct SignInBody: Encodable, Sendable {
    var credentials: Credentials
    var timeZoneIdentifier: String?

    private enum CodingKeys: String, CodingKey {
        case timeZoneIdentifier
    }

    func encode(to encoder: any Encoder) throws {
        try credentials.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(timeZoneIdentifier, forKey: .timeZoneIdentifier)
    }
}

/// The body of `POST /v1/auth/sign-out`: the push tokens this device registered, which the server unregisters.
struct SignOutBody: Encodable, Sendable {
    var deviceTokens: [String]
}
