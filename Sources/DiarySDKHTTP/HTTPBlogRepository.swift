@_spi(Engine) import DiarySDK
import Foundation

/// Blogs over HTTP: `/v1/blogs`, `/v1/me/blogs`, `/v1/users/{id}/blogs`.
struct HTTPBlogRepository: BlogRepository {
    let client: HTTPClient

    func register(_ draft: BlogDraft) async throws -> Blog {
        try await client.send(try client.request("POST", "/v1/blogs", json: draft), as: Blog.self)
    }

    func updateBlog(_ id: Blog.ID, _ edit: BlogEdit) async throws -> Blog {
        try await client.send(try client.request("PATCH", "/v1/blogs/\(id.path)", json: edit), as: Blog.self)
    }

    func deleteBlog(_ id: Blog.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/blogs/\(id.path)"))
    }

    func setPrimary(_ id: Blog.ID) async throws -> Blog {
        try await client.send(HTTPRequest("PUT", "/v1/blogs/\(id.path)/primary"), as: Blog.self)
    }

    func blogs(of userID: User.ID?) async throws -> [Blog] {
        let path = userID.map { "/v1/users/\($0.path)/blogs" } ?? "/v1/me/blogs"
        return try await client.send(HTTPRequest("GET", path), as: [Blog].self)
    }

    func blog(_ id: Blog.ID) async throws -> Blog {
        try await client.send(HTTPRequest("GET", "/v1/blogs/\(id.path)"), as: Blog.self)
    }

    func recordSync(_ id: Blog.ID, _ state: BlogSyncState) async throws -> Blog {
        try await client.send(try client.request("PUT", "/v1/blogs/\(id.path)/sync-state", json: state), as: Blog.self)
    }

    func importItem(_ item: ImportedItem, into id: Blog.ID) async throws -> ImportOutcome {
        try await client.send(
            try client.request("POST", "/v1/blogs/\(id.path)/items", json: item), as: Wrapped<ImportOutcome>.self
        ).value
    }
}
