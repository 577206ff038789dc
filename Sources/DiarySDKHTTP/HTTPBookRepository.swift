import DiarySDK
import Foundation

/// Diary books over HTTP: `/v1/books`.
struct HTTPBookRepository: BookRepository {
    let client: HTTPClient

    func createBook(_ draft: BookDraft) async throws -> DiaryBook {
        try await client.send(try client.request("POST", "/v1/books", json: draft), as: DiaryBook.self)
    }

    func updateBook(_ id: DiaryBook.ID, _ edit: BookEdit) async throws -> DiaryBook {
        try await client.send(try client.request("PATCH", "/v1/books/\(id.path)", json: edit), as: DiaryBook.self)
    }

    func deleteBook(_ id: DiaryBook.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/books/\(id.path)"))
    }

    func book(_ id: DiaryBook.ID) async throws -> DiaryBook {
        try await client.send(HTTPRequest("GET", "/v1/books/\(id.path)"), as: DiaryBook.self)
    }

    func books(page: PageRequest) async throws -> Page<DiaryBook> {
        try await client.send(HTTPRequest("GET", "/v1/books", query: page.queryItems), as: Page<DiaryBook>.self)
    }

    func inviteCode(for id: DiaryBook.ID) async throws -> String {
        try await client.send(HTTPRequest("GET", "/v1/books/\(id.path)/invite-code"), as: Wrapped<String>.self).value
    }

    func rotateInviteCode(for id: DiaryBook.ID) async throws -> String {
        try await client.send(HTTPRequest("POST", "/v1/books/\(id.path)/invite-code/rotate"), as: Wrapped<String>.self).value
    }

    func join(inviteCode: String) async throws -> DiaryBook {
        try await client.send(try client.request("POST", "/v1/books/join", json: Wrapped(value: inviteCode)), as: DiaryBook.self)
    }

    func leave(_ id: DiaryBook.ID) async throws {
        _ = try await client.send(HTTPRequest("POST", "/v1/books/\(id.path)/leave"))
    }

    func removeMember(_ userID: User.ID, from id: DiaryBook.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/books/\(id.path)/members/\(userID.path)"))
    }

    func members(of id: DiaryBook.ID) async throws -> [BookMember] {
        try await client.send(HTTPRequest("GET", "/v1/books/\(id.path)/members"), as: [BookMember].self)
    }

    func nudge(_ id: DiaryBook.ID) async throws {
        _ = try await client.send(HTTPRequest("POST", "/v1/books/\(id.path)/nudge"))
    }
}
