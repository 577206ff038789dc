@_spi(Engine) import DiarySDK
import Foundation
import Hummingbird

/// The body of the hidden and favourite switches.
struct FlagBody: Codable, Sendable {
    var value: Bool
}

extension DiaryAPI {
    func registerDiaries(_ router: Router<DiaryRequestContext>) {
        engineRoute(router, .post, "/v1/diaries", body: .content) { call in
            try .created(try await call.engine.write(try call.decode(DiaryDraft.self)))
        }
        engineRoute(router, .patch, "/v1/diaries/:diaryID", body: .content) { call in
            var edit = try call.decode(DiaryEdit.self)
            if edit.mood == nil, let object = try? JSONSerialization.jsonObject(with: call.body) as? [String: Any],
                object["mood"] is NSNull
            {
                edit.mood = .some(nil)
            }
            return try .ok(try await call.engine.edit(try call.id("diaryID", Diary.self), edit) as Diary)
        }
        engineRoute(router, .delete, "/v1/diaries/:diaryID") { call in
            try await call.engine.delete(try call.id("diaryID", Diary.self))
            return .noContent
        }
        engineRoute(router, .put, "/v1/diaries/:diaryID/hidden") { call in
            try .ok(try await call.engine.setHidden(try call.id("diaryID", Diary.self), try call.decode(FlagBody.self).value))
        }
        engineRoute(router, .put, "/v1/diaries/:diaryID/favourite") { call in
            try .ok(try await call.engine.setFavourite(try call.id("diaryID", Diary.self), try call.decode(FlagBody.self).value))
        }
        engineRoute(router, .get, "/v1/diaries/:diaryID") { call in
            try .ok(try await call.engine.entry(try call.id("diaryID", Diary.self)))
        }
        engineRoute(router, .get, "/v1/diaries") { call in
            var query = DiaryQuery(
                authorID: try call.queryID("authorID", User.self), bookID: try call.queryID("bookID", DiaryBook.self),
                favouritesOnly: call.queryFlag("favouritesOnly"), includeHidden: call.queryFlag("includeHidden"),
                tag: call.query("tag"))
            if let text = call.query("month") {
                guard let month = YearMonth(text) else { throw DiaryError.invalid("month", .invalidFormat, "'\(text)' is not yyyy-MM") }
                query.month = month
            }
            if let text = call.query("day") {
                guard let day = LocalDate(text) else { throw DiaryError.invalid("day", .invalidFormat, "'\(text)' is not yyyy-MM-dd") }
                query.day = day
            }
            return try .ok(try await call.engine.entries(query, page: try call.page()))
        }
        engineRoute(router, .get, "/v1/calendar/:month") { call in
            let text = call.context.parameters.get("month") ?? ""
            guard let month = YearMonth(text) else { throw DiaryError.invalid("month", .invalidFormat, "'\(text)' is not yyyy-MM") }
            return try .ok(try await call.engine.calendar(month, of: try call.queryID("userID", User.self)))
        }
        engineRoute(router, .get, "/v1/streak") { call in
            try .ok(try await call.engine.streak(of: try call.queryID("userID", User.self)))
        }
        registerBooks(router)
    }

    private func registerBooks(_ router: Router<DiaryRequestContext>) {
        engineRoute(router, .post, "/v1/books") { call in
            try .created(try await call.engine.createBook(try call.decode(BookDraft.self)))
        }
        engineRoute(router, .patch, "/v1/books/:bookID") { call in
            try .ok(try await call.engine.updateBook(try call.id("bookID", DiaryBook.self), try call.decode(BookEdit.self)))
        }
        engineRoute(router, .delete, "/v1/books/:bookID") { call in
            try await call.engine.deleteBook(try call.id("bookID", DiaryBook.self))
            return .noContent
        }
        engineRoute(router, .get, "/v1/books/:bookID") { call in
            try .ok(try await call.engine.book(try call.id("bookID", DiaryBook.self)))
        }
        engineRoute(router, .get, "/v1/books") { call in
            try .ok(try await call.engine.books(page: try call.page()))
        }
        engineRoute(router, .get, "/v1/books/:bookID/invite-code") { call in
            try .ok(Wrapped(value: try await call.engine.inviteCode(for: try call.id("bookID", DiaryBook.self))))
        }
        engineRoute(router, .post, "/v1/books/:bookID/invite-code/rotate", body: .empty) { call in
            try .ok(Wrapped(value: try await call.engine.rotateInviteCode(for: try call.id("bookID", DiaryBook.self))))
        }
        engineRoute(router, .post, "/v1/books/join") { call in
            try .ok(try await call.engine.join(inviteCode: try call.decode(Wrapped<String>.self).value))
        }
        engineRoute(router, .post, "/v1/books/:bookID/leave", body: .empty) { call in
            try await call.engine.leave(try call.id("bookID", DiaryBook.self))
            return .noContent
        }
        engineRoute(router, .delete, "/v1/books/:bookID/members/:userID") { call in
            try await call.engine.removeMember(try call.id("userID", User.self), from: try call.id("bookID", DiaryBook.self))
            return .noContent
        }
        engineRoute(router, .get, "/v1/books/:bookID/members") { call in
            try .ok(try await call.engine.members(of: try call.id("bookID", DiaryBook.self)))
        }
        engineRoute(router, .post, "/v1/books/:bookID/nudge", body: .empty) { call in
            try await call.engine.nudge(try call.id("bookID", DiaryBook.self))
            return .noContent
        }
    }
}
