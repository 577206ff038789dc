import DiarySDK
import Foundation

/// Profiles over HTTP: `/v1/users`, `/v1/me/profile`, `/v1/me/settings`.
struct HTTPUserRepository: UserRepository {
    let client: HTTPClient

    func user(_ id: User.ID) async throws -> User {
        try await client.send(HTTPRequest("GET", "/v1/users/\(id.path)"), as: User.self)
    }

    func updateProfile(_ edit: ProfileEdit) async throws -> User {
        var request = try client.request("PATCH", "/v1/me/profile", json: edit)
        if case .some(.none) = edit.avatar {
            // `avatar: null` removes the avatar; a missing key leaves it as it is.
            var object = (try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]) ?? [:]
            object["avatar"] = NSNull()
            request.body = try JSONSerialization.data(withJSONObject: object)
        }
        return try await client.sendProfileEdit(request)
    }

    func updateSettings(_ settings: UserSettings) async throws -> User {
        try await client.sendProfileEdit(try client.request("PUT", "/v1/me/settings", json: settings))
    }

    func editSettings(_ edit: SettingsEdit) async throws -> User {
        try await client.sendProfileEdit(try client.request("PATCH", "/v1/me/settings", json: edit))
    }

    func searchUsers(_ text: String, page: PageRequest) async throws -> Page<User> {
        try await client.send(HTTPRequest("GET", "/v1/users", query: [("q", text)] + page.queryItems), as: Page<User>.self)
    }
}
