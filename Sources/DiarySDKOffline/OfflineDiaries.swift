@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import Foundation

/// Entries on the replica: every write is local and queued; the user's own entries are read locally; others'
/// entries and entries in books are read from the server (and, offline, from its last answer to the same read).
struct OfflineDiaries: DiaryRepository {
    let context: OfflineContext

    func write(_ draft: DiaryDraft) async throws -> Diary {
        if draft.bookID != nil {
            // Book entries take turns the server decides.
            return try await context.online("diaries.write (in a book)", write: true) {
                try await context.remote.diaries.write(draft)
            }
        }
        let (engine, userID) = try await context.engine()
        return try await context.queue(.writeDiary, userID: userID, payload: { result in
            guard let diary = result as? Diary else { return nil }
            return try OutboxPayload(entryID: diary.id, draft: DiaryDraft(recreating: diary)).encoded()
        }) {
            try await engine.write(draft)
        }
    }

    func edit(_ id: Diary.ID, _ edit: DiaryEdit) async throws -> Diary {
        let (engine, userID) = try await context.engine()
        let fields = OutboxPayload.EditedFields(edit)
        return try await local(id) {
            try await context.queue(.editDiary, userID: userID, payload: { _ in
                try OutboxPayload(entryID: id, edit: fields).encoded()
            }) {
                try await engine.edit(id, edit)
            }
        } remote: {
            try await context.remote.diaries.edit(id, edit)
        }
    }

    func delete(_ id: Diary.ID) async throws {
        let (engine, userID) = try await context.engine()
        try await local(id) {
            try await context.queue(.deleteDiary, userID: userID, payload: { _ in
                try OutboxPayload(entryID: id).encoded()
            }) {
                try await engine.delete(id)
            }
        } remote: {
            try await context.remote.diaries.delete(id)
        }
    }

    func setHidden(_ id: Diary.ID, _ isHidden: Bool) async throws -> Diary {
        let (engine, userID) = try await context.engine()
        return try await local(id) {
            try await context.queue(.setHidden, userID: userID, payload: { _ in
                try OutboxPayload(entryID: id, flag: isHidden).encoded()
            }) {
                try await engine.setHidden(id, isHidden)
            }
        } remote: {
            try await context.remote.diaries.setHidden(id, isHidden)
        }
    }

    func setFavourite(_ id: Diary.ID, _ isFavourite: Bool) async throws -> Diary {
        let (engine, userID) = try await context.engine()
        return try await local(id) {
            try await context.queue(.setFavourite, userID: userID, payload: { _ in
                try OutboxPayload(entryID: id, flag: isFavourite).encoded()
            }) {
                try await engine.setFavourite(id, isFavourite)
            }
        } remote: {
            try await context.remote.diaries.setFavourite(id, isFavourite)
        }
    }

    func entry(_ id: Diary.ID) async throws -> Diary {
        let (engine, _) = try await context.engine()
        let held = try await context.backend.replica.storage.read("offline.holds") { try await $0.diary(id) != nil }
        guard held else {
            // Someone else's entry, or one in a book: the server's, or its last answer while offline.
            return try await context.online("diaries.entry", cached: [id]) { try await context.remote.diaries.entry(id) }
        }
        return try await engine.entry(id)
    }

    func entries(_ query: DiaryQuery, page: PageRequest) async throws -> Page<Diary> {
        let (engine, userID) = try await context.engine()
        guard query.bookID == nil, query.authorID == nil || query.authorID == userID else {
            return try await context.online("diaries.entries", cached: [query, page]) {
                try await context.remote.diaries.entries(query, page: page)
            }
        }
        return try await engine.entries(query, page: page)
    }

    func calendar(_ month: YearMonth, of userID: User.ID?) async throws -> MonthCalendar {
        let (engine, me) = try await context.engine()
        guard userID == nil || userID == me else {
            return try await context.online("diaries.calendar", cached: [month, userID]) {
                try await context.remote.diaries.calendar(month, of: userID)
            }
        }
        return try await engine.calendar(month, of: userID)
    }

    func streak(of userID: User.ID?) async throws -> Streak {
        let (engine, me) = try await context.engine()
        guard userID == nil || userID == me else {
            return try await context.online("diaries.streak", cached: [userID]) {
                try await context.remote.diaries.streak(of: userID)
            }
        }
        return try await engine.streak(of: userID)
    }

    /// Runs `local` on an entry of the replica; an entry the replica does not hold (someone else's, or one in a
    /// book) is the server's, so `remote` runs instead.
    private func local<Result: Sendable>(
        _ id: Diary.ID, _ local: () async throws -> Result, remote: () async throws -> Result
    ) async throws -> Result {
        let held = try await context.backend.replica.storage.read("offline.holds") { try await $0.diary(id) != nil }
        guard held else {
            return try await context.online("diaries", write: true, remote)
        }
        return try await local()
    }
}
