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

extension HTTPBlogRepository {
    /// The most bytes of items one batch request carries (the server takes 8 MiB): a batch of long posts is sent as
    /// several requests.
    static let maximumBatchBytes = 4 << 20

    /// `POST /v1/blogs/{id}/items/batch`: up to ``ImportedItem/maximumBatchSize`` items and
    /// ``maximumBatchBytes`` per request.
    func importItems(_ items: [ImportedItem], into id: Blog.ID) async throws -> [ImportItemResult] {
        try ImportedItem.checkBatch(items)
        let encoder = JSONEncoder.diary()
        var groups: [[ImportedItem]] = []
        var bytes = 0
        for item in items {
            let size = (try? encoder.encode(item).count) ?? 0
            if groups.isEmpty || bytes + size > Self.maximumBatchBytes {
                groups.append([])
                bytes = 0
            }
            groups[groups.count - 1].append(item)
            bytes += size
        }
        var results: [ImportItemResult] = []
        for group in groups {
            let answer = try await client.send(
                try client.request("POST", "/v1/blogs/\(id.path)/items/batch", json: ImportBatch(items: group)),
                as: ImportBatchResults.self)
            guard answer.results.count == group.count else {
                throw DiaryError(.server, "the server answered \(answer.results.count) results for \(group.count) items")
            }
            results += answer.results
        }
        return results
    }
}

/// The body of `POST /v1/blogs/{id}/items/batch`.
struct ImportBatch: Encodable {
    let items: [ImportedItem]
}

/// Its answer.
struct ImportBatchResults: Decodable {
    let results: [ImportItemResult]
}
