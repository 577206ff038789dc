import DiarySDK
import Foundation

/// Follows, blocks and reports over HTTP: `/v1/users/{id}/follow|block|followers|following|relationship`,
/// `/v1/posts/{id}/author-block`, `/v1/comments/{id}/author-block`, `/v1/me/blocked`, `/v1/reports`.
struct HTTPSocialRepository: SocialRepository {
    let client: HTTPClient

    private struct ReportBody: Encodable {
        var target: ReportTarget
        var reason: ReportReason
        var detail: String
    }

    func follow(_ userID: User.ID) async throws {
        _ = try await client.send(HTTPRequest("PUT", "/v1/users/\(userID.path)/follow"))
    }

    func unfollow(_ userID: User.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/users/\(userID.path)/follow"))
    }

    func followers(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await client.send(HTTPRequest("GET", "/v1/users/\(userID.path)/followers", query: page.queryItems), as: Page<User>.self)
    }

    func following(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await client.send(HTTPRequest("GET", "/v1/users/\(userID.path)/following", query: page.queryItems), as: Page<User>.self)
    }

    func relationship(with userID: User.ID) async throws -> Relationship {
        try await client.send(HTTPRequest("GET", "/v1/users/\(userID.path)/relationship"), as: Relationship.self)
    }

    func block(_ userID: User.ID) async throws {
        _ = try await client.send(HTTPRequest("PUT", "/v1/users/\(userID.path)/block"))
    }

    func unblock(_ userID: User.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/users/\(userID.path)/block"))
    }

    func blockAuthor(of content: AuthoredContent) async throws {
        switch content {
        case .post(let id): _ = try await client.send(HTTPRequest("PUT", "/v1/posts/\(id.path)/author-block"))
        case .comment(let id): _ = try await client.send(HTTPRequest("PUT", "/v1/comments/\(id.path)/author-block"))
        }
    }

    func unblockAnonymousAuthors() async throws -> Int {
        try await client.send(HTTPRequest("DELETE", "/v1/me/author-blocks"), as: Wrapped<Int>.self).value
    }

    func blockedUsers(page: PageRequest) async throws -> Page<User> {
        try await client.send(HTTPRequest("GET", "/v1/me/blocked", query: page.queryItems), as: Page<User>.self)
    }

    func report(_ target: ReportTarget, reason: ReportReason, detail: String) async throws -> Report {
        try await client.send(
            try client.request("POST", "/v1/reports", json: ReportBody(target: target, reason: reason, detail: detail)),
            as: Report.self)
    }
}
