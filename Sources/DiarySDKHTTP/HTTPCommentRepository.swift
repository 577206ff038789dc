import DiarySDK
import Foundation

/// Comments over HTTP: `/v1/comments`, and `/v1/{diaries|posts}/{id}/comments`.
struct HTTPCommentRepository: CommentRepository {
    let client: HTTPClient

    private struct EditBody: Encodable {
        var body: String
        var mood: Mood?
    }

    func addComment(_ draft: CommentDraft) async throws -> Comment {
        try await client.send(try client.request("POST", "/v1/comments", json: draft), as: Comment.self)
    }

    func editComment(_ id: Comment.ID, body: String, mood: Mood?) async throws -> Comment {
        try await client.send(
            try client.request("PATCH", "/v1/comments/\(id.path)", json: EditBody(body: body, mood: mood)), as: Comment.self)
    }

    func deleteComment(_ id: Comment.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/comments/\(id.path)"))
    }

    func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        let path =
            switch target {
            case .diary(let id): "/v1/diaries/\(id.path)/comments"
            case .post(let id): "/v1/posts/\(id.path)/comments"
            }
        return try await client.send(HTTPRequest("GET", path, query: page.queryItems), as: Page<CommentThread>.self)
    }
}
