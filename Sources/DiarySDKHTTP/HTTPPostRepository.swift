import DiarySDK
import Foundation

/// Community posts over HTTP: `/v1/posts`, `/v1/feed`, likes, and `/v1/diaries/{id}/share`.
struct HTTPPostRepository: PostRepository {
    let client: HTTPClient

    func publish(_ draft: PostDraft) async throws -> Post {
        try await client.send(try client.request("POST", "/v1/posts", json: draft), as: Post.self)
    }

    func share(_ diaryID: Diary.ID, isAnonymous: Bool) async throws -> Post {
        try await client.send(
            try client.request("POST", "/v1/diaries/\(diaryID.path)/share", json: ["isAnonymous": isAnonymous]), as: Post.self)
    }

    func edit(_ id: Post.ID, _ edit: PostEdit) async throws -> Post {
        try await client.send(try client.request("PATCH", "/v1/posts/\(id.path)", json: edit), as: Post.self)
    }

    func delete(_ id: Post.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/posts/\(id.path)"))
    }

    func post(_ id: Post.ID) async throws -> Post {
        try await client.send(HTTPRequest("GET", "/v1/posts/\(id.path)"), as: Post.self)
    }

    func feed(page: PageRequest) async throws -> Page<Post> {
        try await client.send(HTTPRequest("GET", "/v1/feed", query: page.queryItems), as: Page<Post>.self)
    }

    func posts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        let path = userID.map { "/v1/users/\($0.path)/posts" } ?? "/v1/me/posts"
        return try await client.send(HTTPRequest("GET", path, query: page.queryItems), as: Page<Post>.self)
    }

    func posts(by userID: User.ID?, on day: LocalDate) async throws -> [Post] {
        let owner = userID.map { "/v1/users/\($0.path)" } ?? "/v1/me"
        return try await client.send(HTTPRequest("GET", owner + "/days/\(day)/posts"), as: [Post].self)
    }

    func likers(of id: Post.ID, page: PageRequest) async throws -> Page<User> {
        try await client.send(HTTPRequest("GET", "/v1/posts/\(id.path)/likers", query: page.queryItems), as: Page<User>.self)
    }

    func search(_ search: PostSearch, page: PageRequest) async throws -> Page<Post> {
        let query = [("text", search.text)] + search.tags.map { ("tag", $0) } + page.queryItems
        return try await client.send(HTTPRequest("GET", "/v1/posts/search", query: query), as: Page<Post>.self)
    }

    func like(_ id: Post.ID) async throws -> Post {
        try await client.send(HTTPRequest("PUT", "/v1/posts/\(id.path)/like"), as: Post.self)
    }

    func unlike(_ id: Post.ID) async throws -> Post {
        try await client.send(HTTPRequest("DELETE", "/v1/posts/\(id.path)/like"), as: Post.self)
    }

    func likedPosts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        let path = userID.map { "/v1/users/\($0.path)/likes" } ?? "/v1/me/likes"
        return try await client.send(HTTPRequest("GET", path, query: page.queryItems), as: Page<Post>.self)
    }
}
