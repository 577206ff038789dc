import DiarySDK
import Foundation

/// The server's answer to sign-up, sign-in and refresh.
struct AuthReply: Decodable, Sendable {
    var user: User?
    var accessToken: String
    var refreshToken: String
    var expiresAt: Date

    func session(userID: User.ID) -> StoredSession {
        StoredSession(userID: userID, accessToken: accessToken, refreshToken: refreshToken, expiresAt: expiresAt)
    }
}

/// A one-field JSON object: `{"value": …}`.
struct Wrapped<Value: Codable & Sendable>: Codable, Sendable {
    var value: Value
}
