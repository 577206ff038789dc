import DiarySDK
import Foundation

/// Diary entries over HTTP: `/v1/diaries`, `/v1/calendar/{month}`, `/v1/streak`.
struct HTTPDiaryRepository: DiaryRepository {
    let client: HTTPClient

    func write(_ draft: DiaryDraft) async throws -> Diary {
        try await client.send(try client.request("POST", "/v1/diaries", json: draft), as: Diary.self)
    }

    func edit(_ id: Diary.ID, _ edit: DiaryEdit) async throws -> Diary {
        var request = try client.request("PATCH", "/v1/diaries/\(id.path)", json: edit)
        if case .some(.none) = edit.mood {
            // `mood: null` clears the mood; a missing key leaves it as it is.
            var object = (try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]) ?? [:]
            object["mood"] = NSNull()
            request.body = try JSONSerialization.data(withJSONObject: object)
        }
        return try await client.send(request, as: Diary.self)
    }

    func delete(_ id: Diary.ID) async throws {
        _ = try await client.send(HTTPRequest("DELETE", "/v1/diaries/\(id.path)"))
    }

    func setHidden(_ id: Diary.ID, _ isHidden: Bool) async throws -> Diary {
        try await client.send(try client.request("PUT", "/v1/diaries/\(id.path)/hidden", json: ["value": isHidden]), as: Diary.self)
    }

    func setFavourite(_ id: Diary.ID, _ isFavourite: Bool) async throws -> Diary {
        try await client.send(
            try client.request("PUT", "/v1/diaries/\(id.path)/favourite", json: ["value": isFavourite]), as: Diary.self)
    }

    func entry(_ id: Diary.ID) async throws -> Diary {
        try await client.send(HTTPRequest("GET", "/v1/diaries/\(id.path)"), as: Diary.self)
    }

    func entries(_ query: DiaryQuery, page: PageRequest) async throws -> Page<Diary> {
        var items: [(String, String)] = []
        if let authorID = query.authorID { items.append(("authorID", authorID.path)) }
        if let bookID = query.bookID { items.append(("bookID", bookID.path)) }
        if let month = query.month { items.append(("month", month.description)) }
        if let day = query.day { items.append(("day", day.description)) }
        if query.favouritesOnly { items.append(("favouritesOnly", "true")) }
        if query.includeHidden { items.append(("includeHidden", "true")) }
        if let tag = query.tag { items.append(("tag", tag)) }
        return try await client.send(HTTPRequest("GET", "/v1/diaries", query: items + page.queryItems), as: Page<Diary>.self)
    }

    func calendar(_ month: YearMonth, of userID: User.ID?) async throws -> MonthCalendar {
        try await client.send(
            HTTPRequest("GET", "/v1/calendar/\(month.description)", query: userID.map { [("userID", $0.path)] } ?? []),
            as: MonthCalendar.self)
    }

    func streak(of userID: User.ID?) async throws -> Streak {
        try await client.send(HTTPRequest("GET", "/v1/streak", query: userID.map { [("userID", $0.path)] } ?? []), as: Streak.self)
    }
}
