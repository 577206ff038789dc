@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import Foundation

/// Entries on the replica: every write of the user's own entries is local and queued, and they are read locally.
/// Entries in books and others' entries are the server's: read from it (and, offline, from its last answer to the
/// same read), and written to it at once while it can be reached, else queued like a comment
/// (``OfflineContext/sendOrQueue(_:_:call:local:)``): the server passes the book's turn on, and refuses a write
/// when it arrives from someone no longer a member (or for a book that is gone), which is then reported as a
/// conflict.
struct OfflineDiaries: DiaryRepository {
    let context: OfflineContext

    private var now: Date { context.backend.configuration.environment.clock.now() }

    func write(_ draft: DiaryDraft) async throws -> Diary {
        if draft.bookID != nil { return try await writeInBook(draft) }
        let (engine, userID) = try await context.engine()
        return try await context.queue(.writeDiary, userID: userID, payload: { result in
            guard let diary = result as? Diary else { return nil }
            return try OutboxPayload(entryID: diary.id, draft: DiaryDraft(recreating: diary)).encoded()
        }) {
            try await engine.write(draft)
        }
    }

    /// An entry in a book: sent now, or queued with the entry as the device makes it (the engine's checks of its
    /// text, tags and visibility; the book's membership and turn are the server's to check).
    private func writeInBook(_ draft: DiaryDraft) async throws -> Diary {
        let seen = await context.seen()
        var draft = draft
        // Chosen here, so the entry keeps its id whether it is sent now or later.
        let id = draft.id ?? Diary.ID(context.backend.configuration.environment.ids.next())
        draft.id = id
        let sent = draft
        let diary = try await context.sendOrQueue(.writeDiary, try OutboxPayload(entryID: id, draft: sent).encoded()) {
            try await context.remote.diaries.write(sent)
        } local: { userID in
            let body = try Validation.text(sent.body, field: "body", maximum: Validation.maximumBodyLength)
            let title = try Validation.text(
                sent.title, field: "title", maximum: Validation.maximumTitleLength, allowEmpty: true)
            let tags = try Validation.tags(sent.tags)
            let mood = try Validation.mood(sent.mood)
            try Validation.images(sent.images)
            try DiaryEngine.checkVisibility(sent.visibility, bookID: sent.bookID)
            let engine = context.backend.engine(for: userID)
            let now = self.now
            let day: LocalDate
            if let chosen = sent.day {
                day = chosen
            } else {
                let timeZone = try await context.backend.replica.storage.read("offline.timeZone") { reader in
                    try await engine.timeZone(of: userID, in: reader)
                }
                day = LocalDate(now, in: timeZone)
            }
            return Diary(
                id: id, authorID: userID, bookID: sent.bookID, day: day, title: title, body: body, mood: mood,
                tags: tags, images: sent.images, visibility: sent.visibility, createdAt: now, updatedAt: now)
        }
        seen.keep(diary)
        return diary
    }

    func edit(_ id: Diary.ID, _ edit: DiaryEdit) async throws -> Diary {
        let (engine, userID) = try await context.engine()
        let fields = OutboxPayload.EditedFields(edit)
        let payload = try OutboxPayload(entryID: id, edit: fields).encoded()
        return try await local(id) {
            try await context.queue(.editDiary, userID: userID, payload: { _ in payload }) {
                try await engine.edit(id, edit)
            }
        } remote: {
            try await remote(.editDiary, id, payload, { try await context.remote.diaries.edit(id, edit) }) { diary in
                let edit = try edit.validated()
                if let images = edit.images { try Validation.images(images) }
                try DiaryEngine.checkVisibility(edit.visibility ?? diary.visibility, bookID: diary.bookID)
                diary.apply(edit)
            }
        }
    }

    func delete(_ id: Diary.ID) async throws {
        let seen = await context.seen()
        let (engine, userID) = try await context.engine()
        let payload = try OutboxPayload(entryID: id).encoded()
        try await local(id) {
            try await context.queue(.deleteDiary, userID: userID, payload: { _ in payload }) {
                try await engine.delete(id)
            }
        } remote: {
            let userID = try await context.userID()
            try await context.sendOrQueue(.deleteDiary, payload) {
                try await context.remote.diaries.delete(id)
            } local: { _ in
                if let diary = seen.diary(id), diary.authorID != userID {
                    throw DiaryError(.forbidden, "only its author may delete entry \(id)")
                }
            }
            if let diary = seen.diary(id), diary.bookID != nil {
                // The server keeps a trace of a deleted entry in a book.
                seen.keep(Self.trace(of: diary, at: now))
            } else {
                seen.deleted(id)
            }
        }
    }

    func setHidden(_ id: Diary.ID, _ isHidden: Bool) async throws -> Diary {
        let (engine, userID) = try await context.engine()
        let payload = try OutboxPayload(entryID: id, flag: isHidden).encoded()
        return try await local(id) {
            try await context.queue(.setHidden, userID: userID, payload: { _ in payload }) {
                try await engine.setHidden(id, isHidden)
            }
        } remote: {
            try await remote(.setHidden, id, payload, { try await context.remote.diaries.setHidden(id, isHidden) }) {
                $0.isHidden = isHidden
            }
        }
    }

    func setFavourite(_ id: Diary.ID, _ isFavourite: Bool) async throws -> Diary {
        let (engine, userID) = try await context.engine()
        let payload = try OutboxPayload(entryID: id, flag: isFavourite).encoded()
        return try await local(id) {
            try await context.queue(.setFavourite, userID: userID, payload: { _ in payload }) {
                try await engine.setFavourite(id, isFavourite)
            }
        } remote: {
            try await remote(.setFavourite, id, payload, { try await context.remote.diaries.setFavourite(id, isFavourite) }) {
                $0.isFavourite = isFavourite
            }
        }
    }

    func entry(_ id: Diary.ID) async throws -> Diary {
        let seen = await context.seen()
        let (engine, _) = try await context.engine()
        guard try await holds(id) else {
            // Someone else's entry, or one in a book: the server's, or its last answer while offline.
            let diary = try await context.online(
                "diaries.entry", cached: [id],
                onCacheHit: { cached in
                    guard !seen.isDeleted(id) else { throw DiaryError.notFound("entry \(id)") }
                    return seen.diary(id) ?? cached
                }
            ) {
                try await context.remote.diaries.entry(id)
            }
            seen.keep(diary)
            return diary
        }
        return try await engine.entry(id)
    }

    func entries(_ query: DiaryQuery, page: PageRequest) async throws -> Page<Diary> {
        let seen = await context.seen()
        let (engine, userID) = try await context.engine()
        guard query.bookID == nil, query.authorID == nil || query.authorID == userID else {
            let entries = try await context.online(
                "diaries.entries", cached: [query, page],
                onCacheHit: { cached in try await withQueuedEntries(cached, query: query, page: page, userID: userID, seen: seen) }
            ) {
                try await context.remote.diaries.entries(query, page: page)
            }
            for diary in entries.items { seen.keep(diary) }
            return entries
        }
        return try await engine.entries(query, page: page)
    }

    /// A kept answer with what the device changed since: entries edited or deleted here shown as they are now,
    /// and, on a book's first page, the entries written in it and not yet sent.
    private func withQueuedEntries(
        _ page: Page<Diary>, query: DiaryQuery, page request: PageRequest, userID: User.ID, seen: SeenValues
    ) async throws -> Page<Diary> {
        var page = page
        page.items = page.items.filter { !seen.isDeleted($0.id) }.map { seen.diary($0.id) ?? $0 }
        let isFirst: Bool =
            switch request.position {
            case .cursor(let cursor): cursor == nil
            case .number(let number): number == 1
            }
        guard let bookID = query.bookID, isFirst else { return page }
        let queued = try await context.backend.replica.storage.read("offline.queuedEntries") { reader in
            try await reader.rows(StorageSchema.outboxByUser, equalTo: userID)
        }
        let shown = Set(page.items.map(\.id))
        let engine = context.backend.engine(for: userID)
        let timeZone = try await context.backend.replica.storage.read("offline.timeZone") { reader in
            try await engine.timeZone(of: userID, in: reader)
        }
        // As the device shows them; after a relaunch, made again from the queued draft and the edits behind it.
        var made: [Diary.ID: Diary] = [:]
        var order: [Diary.ID] = []
        for entry in queued.sorted(by: { $0.sequence < $1.sequence }) {
            guard let operation = OutboxOperation(rawValue: entry.operation), !operation.isCommunity,
                let payload = try? OutboxPayload.decode(entry)
            else { continue }
            let id = payload.entryID
            switch operation {
            case .writeDiary:
                guard let draft = payload.draft, draft.bookID == bookID else { continue }
                made[id] = Diary(
                    id: id, authorID: userID, bookID: bookID, day: draft.day ?? LocalDate(entry.createdAt, in: timeZone),
                    title: Self.title(draft.title), body: Self.body(draft.body), mood: (try? Validation.mood(draft.mood)) ?? draft.mood,
                    tags: (try? Validation.tags(draft.tags)) ?? draft.tags, images: draft.images,
                    visibility: draft.visibility, createdAt: entry.createdAt, updatedAt: entry.createdAt)
                order.append(id)
            case .editDiary:
                guard var diary = made[id], let edit = payload.edit?.diaryEdit else { continue }
                diary.apply((try? edit.validated()) ?? edit)
                diary.updatedAt = entry.createdAt
                made[id] = diary
            case .deleteDiary:
                made[id] = made[id].map { Self.trace(of: $0, at: entry.createdAt) }
            case .setHidden:
                made[id]?.isHidden = payload.flag ?? false
            case .setFavourite:
                made[id]?.isFavourite = payload.flag ?? false
            case .addComment, .editComment, .deleteComment, .like, .unlike:
                continue
            }
        }
        let written = order.reversed().compactMap { id -> Diary? in
            guard !shown.contains(id), !seen.isDeleted(id), let diary = made[id] else { return nil }
            let shown = seen.diary(id) ?? diary
            return Self.matches(shown, query) ? shown : nil
        }
        page.items = written + page.items
        return page
    }

    /// A title or body as the engine keeps it (trimmed), or as given when the engine would refuse it.
    private static func title(_ text: String) -> String {
        (try? Validation.text(text, field: "title", maximum: Validation.maximumTitleLength, allowEmpty: true)) ?? text
    }

    private static func body(_ text: String) -> String {
        (try? Validation.text(text, field: "body", maximum: Validation.maximumBodyLength)) ?? text
    }

    /// What the server keeps of a deleted entry in a book (``Diary/clearAsDeletedInBook(at:)``).
    private static func trace(of diary: Diary, at date: Date) -> Diary {
        var trace = diary
        trace.clearAsDeletedInBook(at: date)
        return trace
    }

    /// Whether a queued entry belongs on a page of `query` (its book is checked by the caller).
    private static func matches(_ diary: Diary, _ query: DiaryQuery) -> Bool {
        if let month = query.month, diary.day.yearMonth != month { return false }
        if let day = query.day, diary.day != day { return false }
        if let tag = query.tag, !diary.tags.contains(tag) { return false }
        if query.favouritesOnly, !diary.isFavourite { return false }
        if !query.includeHidden, diary.isHidden { return false }
        return true
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

    /// Whether the replica holds entry `id` (one of the user's own, outside books).
    private func holds(_ id: Diary.ID) async throws -> Bool {
        try await context.backend.replica.storage.read("offline.holds") { try await $0.diary(id) != nil }
    }

    /// Runs `local` on an entry of the replica; an entry the replica does not hold (someone else's, or one in a
    /// book) is the server's, so `remote` runs instead.
    private func local<Result: Sendable>(
        _ id: Diary.ID, _ local: () async throws -> Result, remote: () async throws -> Result
    ) async throws -> Result {
        try await holds(id) ? local() : remote()
    }

    /// A change to an entry the replica does not hold: sent now, or queued and answered with the entry as last
    /// read (or written) on the device with `change` applied.
    private func remote(
        _ operation: OutboxOperation, _ id: Diary.ID, _ payload: (subject: UUID, payload: String),
        _ call: () async throws -> Diary, change: (inout Diary) throws -> Void
    ) async throws -> Diary {
        let seen = await context.seen()
        let diary = try await context.sendOrQueue(operation, payload, call: call) { userID in
            guard var diary = seen.diary(id), !seen.isDeleted(id) else {
                throw OfflineComments.unknown("diaries.\(operation)", "entry \(id)")
            }
            guard diary.deletedAt == nil else { throw DiaryError.notFound("entry \(id)") }
            guard diary.authorID == userID else {
                throw DiaryError(.forbidden, "only its author may change entry \(id)")
            }
            try change(&diary)
            diary.updatedAt = now
            return diary
        }
        seen.keep(diary)
        return diary
    }
}
