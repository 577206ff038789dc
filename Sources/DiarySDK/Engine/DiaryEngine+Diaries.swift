import Foundation

extension DiaryEngine: DiaryRepository {
    @_spi(Engine)
    public func write(_ draft: DiaryDraft) async throws -> Diary {
        let body = try Validation.text(draft.body, field: "body", maximum: Validation.maximumBodyLength)
        let title = try Validation.text(draft.title, field: "title", maximum: Validation.maximumTitleLength, allowEmpty: true)
        let tags = try Validation.tags(draft.tags)
        let mood = try Validation.mood(draft.mood)
        try Self.checkVisibility(draft.visibility, bookID: draft.bookID)
        let now = self.now
        return try await write("diaries.write", joining: draft) { transaction, actor in
            try await Self.checkImages(draft.images, owner: actor.id, in: transaction)
            if let bookID = draft.bookID {
                guard try await AccessPolicy.isMember(actor.id, of: bookID, in: transaction) else {
                    throw DiaryError.notFound("book \(bookID)")
                }
            }
            let day: LocalDate
            if let chosen = draft.day {
                day = chosen
            } else {
                day = LocalDate(now, in: try await self.timeZone(of: actor, in: transaction))
            }
            let id = try await self.claimID(draft.id, in: transaction)
            let diary = Diary(
                id: id, authorID: actor.id, bookID: draft.bookID, day: day, title: title, body: body, mood: mood,
                tags: tags, images: draft.images, visibility: draft.visibility, createdAt: now, updatedAt: now)
            try await transaction.put(.diary(diary))
            if let bookID = draft.bookID { try await self.advanceBook(bookID, after: diary, in: transaction) }
            return diary
        }
    }

    @_spi(Engine)
    public func edit(_ id: Diary.ID, _ edit: DiaryEdit) async throws -> Diary {
        let edit = try edit.validated()
        let now = self.now
        return try await write("diaries.edit", joining: id, edit) { transaction, actor in
            var diary = try await Self.ownDiary(id, actor: actor, in: transaction)
            if let images = edit.images { try await Self.checkImages(images, owner: actor.id, in: transaction) }
            let visibility = edit.visibility ?? diary.visibility
            try Self.checkVisibility(visibility, bookID: diary.bookID)
            let oldImages = diary.images.map(\.id)
            diary.apply(edit)
            diary.updatedAt = now
            try await transaction.put(.diary(diary))
            try await Self.removeUnreferencedAttachments(oldImages, in: transaction)
            return diary
        }
    }

    @_spi(Engine)
    public func delete(_ id: Diary.ID) async throws {
        let now = self.now
        try await write("diaries.delete", joining: id) { transaction, actor in
            var diary = try await Self.ownDiary(id, actor: actor, in: transaction)
            guard let bookID = diary.bookID else {
                try await self.deleteDiary(id, in: transaction)
                return
            }
            try await self.deleteComments(on: .diary(id), in: transaction)
            let images = diary.images.map(\.id)
            diary.clearAsDeletedInBook(at: now)
            try await transaction.put(.diary(diary))
            try await Self.removeUnreferencedAttachments(images, in: transaction)
            if var book = try await transaction.book(bookID) {
                book.updatedAt = now
                try await transaction.put(.book(book))
            }
        }
    }

    @_spi(Engine)
    public func setHidden(_ id: Diary.ID, _ isHidden: Bool) async throws -> Diary {
        try await updateOwn(id, operation: "diaries.setHidden", value: isHidden) { $0.isHidden = isHidden }
    }

    @_spi(Engine)
    public func setFavourite(_ id: Diary.ID, _ isFavourite: Bool) async throws -> Diary {
        try await updateOwn(id, operation: "diaries.setFavourite", value: isFavourite) { $0.isFavourite = isFavourite }
    }

    @_spi(Engine)
    public func entry(_ id: Diary.ID) async throws -> Diary {
        try await read("diaries.entry") { db, viewer in try await Self.visibleDiary(id, viewer: viewer, in: db) }
    }

    @_spi(Engine)
    public func entries(_ query: DiaryQuery, page: PageRequest) async throws -> Page<Diary> {
        try await read("diaries.entries") { db, viewer in
            let tag = query.tag?.lowercased()
            let candidates: [Diary]
            if let bookID = query.bookID {
                guard try await AccessPolicy.isMember(viewer.id, of: bookID, in: db) else {
                    throw DiaryError.notFound("book \(bookID)")
                }
                candidates = try await db.rows(StorageSchema.diariesByBook, equalTo: bookID)
            } else {
                let author = query.authorID ?? viewer.id
                guard try await AccessPolicy.canSee(user: author, viewer: viewer, in: db) else {
                    throw DiaryError.notFound("user \(author)")
                }
                if let month = query.month ?? query.day?.yearMonth {
                    candidates = try await db.rows(
                        StorageSchema.diariesByAuthorMonth, equalTo: AuthorMonth(authorID: author, month: month))
                } else {
                    // Walk the author's ordered listing (or its tag's) and stop once the page is full.
                    return try await Paginator.page(
                        page, key: StorageSchema.diaryListingKey,
                        fetch: { position, limit in
                            if let tag {
                                return try await db.page(
                                    StorageSchema.entriesOfAuthorTag, AuthorTag(authorID: author, tag: tag),
                                    descending: true, from: position, limit: limit, where: .none)
                            }
                            return try await db.page(
                                StorageSchema.entriesOfAuthor, author, descending: true, from: position, limit: limit,
                                where: .none)
                        },
                        resolve: { diary -> Diary? in
                            try await Self.matches(diary, query, tag: tag, viewer: viewer, in: db) ? diary : nil
                        })
                }
            }
            var matches: [Diary] = []
            for diary in candidates {
                if try await Self.matches(diary, query, tag: tag, viewer: viewer, in: db) { matches.append(diary) }
            }
            return try Paginator.page(
                ordered: matches, key: StorageSchema.diaryListingKey, descending: true, request: page)
        }
    }

    @_spi(Engine)
    public func calendar(_ month: YearMonth, of userID: User.ID?) async throws -> MonthCalendar {
        try await read("diaries.calendar") { db, viewer in
            let owner = userID ?? viewer.id
            guard try await AccessPolicy.canSee(user: owner, viewer: viewer, in: db) else {
                throw DiaryError.notFound("user \(owner)")
            }
            let key = AuthorMonth(authorID: owner, month: month)
            // One slot per day of the month, indexed by the day: no hashing per row, and the days come out in order.
            var days = [MonthCalendar.Day?](repeating: nil, count: 31)
            // The mood of a day is that of its latest entry with one; among entries written at the same instant, the
            // one with the greatest id, so the answer does not depend on the order the store hands rows over.
            var moodTimes = [(Date, UUID)?](repeating: nil, count: 31)
            func count(_ diary: DiaryCalendarFields) {
                let slot = diary.day.day - 1
                var day = days[slot] ?? .init(date: diary.day, mood: nil, entryCount: 0, postCount: 0)
                day.entryCount += 1
                if let mood = diary.mood, Self.isLater(diary, than: moodTimes[slot]) {
                    day.mood = mood
                    moodTimes[slot] = (diary.createdAt, diary.id.rawValue)
                }
                days[slot] = day
            }
            // Only the fields the calendar needs of each entry, straight from the store, without an array of the
            // month's entries or a copy of each (with its text and tags, that cost several times the rest of the
            // loop); the entries whose visibility needs a read are read whole afterwards.
            var undecided: [Diary.ID] = []
            try await db.forEachRow(StorageSchema.diariesByAuthorMonth, equalTo: key, reading: StorageSchema.diaryCalendar) {
                diary in
                guard !diary.isHidden && diary.deletedAt == nil else { return }
                switch AccessPolicy.canSeeWithoutReading(diary, viewer: viewer) {
                case true?: count(diary)
                case false?: break
                case nil: undecided.append(diary.id)
                }
            }
            for id in undecided {
                guard let diary = try await db.diary(id), try await Self.countsForCalendar(diary, viewer: viewer, in: db)
                else { continue }
                count(DiaryCalendarFields(diary))
            }
            for post in try await db.rows(StorageSchema.postsByAuthorMonth, equalTo: key) {
                guard Self.countsForCalendar(post, viewer: viewer) else { continue }
                let slot = post.day.day - 1
                var day = days[slot] ?? .init(date: post.day, mood: nil, entryCount: 0, postCount: 0)
                day.postCount += 1
                days[slot] = day
            }
            return MonthCalendar(month: month, days: days.compactMap { $0 })
        }
    }

    @_spi(Engine)
    public func streak(of userID: User.ID?) async throws -> Streak {
        let now = self.now
        return try await read("diaries.streak") { db, viewer in
            let owner = userID ?? viewer.id
            guard try await AccessPolicy.canSee(user: owner, viewer: viewer, in: db) else {
                throw DiaryError.notFound("user \(owner)")
            }
            var days: [LocalDate] = []
            var undecided: [Diary.ID] = []
            try await db.forEachRow(StorageSchema.diariesByAuthor, equalTo: owner, reading: StorageSchema.diaryCalendar) {
                diary in
                guard !diary.isHidden && diary.deletedAt == nil else { return }
                switch AccessPolicy.canSeeWithoutReading(diary, viewer: viewer) {
                case true?: days.append(diary.day)
                case false?: break
                case nil: undecided.append(diary.id)
                }
            }
            for id in undecided {
                guard let diary = try await db.diary(id), try await Self.countsForCalendar(diary, viewer: viewer, in: db)
                else { continue }
                days.append(diary.day)
            }
            for post in try await db.rows(StorageSchema.postsByAuthor, equalTo: owner) {
                if Self.countsForCalendar(post, viewer: viewer) { days.append(post.day) }
            }
            let today = LocalDate(now, in: try await self.timeZone(of: owner, in: db))
            return StreakCalculator.streak(days: days, today: today)
        }
    }

    // MARK: - Helpers

    /// Whether an entry counts on a calendar or streak `viewer` sees: not hidden, not deleted, and visible to them.
    /// Whether an entry was written after the one marked by `mark` (its time and id); at the same instant, whether
    /// its id sorts after (compared as text only then, which is rare).
    private static func isLater(_ diary: DiaryCalendarFields, than mark: (Date, UUID)?) -> Bool {
        guard let mark else { return true }
        if diary.createdAt != mark.0 { return diary.createdAt > mark.0 }
        return diary.id.rawValue.uuidString > mark.1.uuidString
    }

    static func countsForCalendar(_ diary: Diary, viewer: Viewer, in db: any StorageReader) async throws -> Bool {
        guard !diary.isHidden && diary.deletedAt == nil else { return false }
        return try await AccessPolicy.canSee(diary, viewer: viewer, in: db)
    }

    /// Whether a post counts on a calendar or streak `viewer` sees: their own, or someone's named post they may see
    /// (an anonymous one on its author's calendar would name them).
    static func countsForCalendar(_ post: PostRecord, viewer: Viewer) -> Bool {
        post.authorID == viewer.id || (!post.isAnonymous && AccessPolicy.canSee(post, viewer: viewer))
    }

    /// Whether an entry passes a query's filters and `viewer` may see it.
    private static func matches(
        _ diary: Diary, _ query: DiaryQuery, tag: String?, viewer: Viewer, in db: any StorageReader
    ) async throws -> Bool {
        guard try await AccessPolicy.canSee(diary, viewer: viewer, in: db) else { return false }
        if diary.isHidden && !query.includeHidden { return false }
        if query.favouritesOnly && !diary.isFavourite { return false }
        if let month = query.month, diary.day.yearMonth != month { return false }
        if let day = query.day, diary.day != day { return false }
        if let tag, !diary.tags.contains(where: { $0.lowercased() == tag }) { return false }
        return true
    }

    package static func checkVisibility(_ visibility: Diary.Visibility, bookID: DiaryBook.ID?) throws {
        if bookID != nil && visibility != .members {
            throw DiaryError.invalid("visibility", .notAllowed, "entries in a book are visible to its members only")
        }
        if bookID == nil && visibility == .members {
            throw DiaryError.invalid("visibility", .notAllowed, "members visibility needs a book")
        }
    }

    /// An entry the actor wrote: `.notFound` when they cannot see it, `.forbidden` when someone else wrote it.
    static func ownDiary(_ id: Diary.ID, actor: Viewer, in db: any StorageReader) async throws -> Diary {
        guard let diary = try await db.diary(id), diary.deletedAt == nil,
            try await AccessPolicy.canSee(diary, viewer: actor, in: db)
        else {
            throw DiaryError.notFound("entry \(id)")
        }
        guard diary.authorID == actor.id else { throw DiaryError.forbidden("only the author may change entry \(id)") }
        return diary
    }

    /// An entry `viewer` may see (a deleted entry's trace included, for members who chose to see them):
    /// `.notFound` otherwise.
    static func visibleDiary(_ id: Diary.ID, viewer: Viewer, in db: any StorageReader) async throws -> Diary {
        guard let diary = try await db.diary(id), try await AccessPolicy.canSee(diary, viewer: viewer, in: db) else {
            throw DiaryError.notFound("entry \(id)")
        }
        return diary
    }

    private func updateOwn(
        _ id: Diary.ID, operation: String, value: Bool, _ change: @escaping @Sendable (inout Diary) -> Void
    ) async throws -> Diary {
        try await write(operation, joining: id, value) { transaction, actor in
            var diary = try await Self.ownDiary(id, actor: actor, in: transaction)
            change(&diary)
            try await transaction.put(.diary(diary))
            return diary
        }
    }

    /// After an entry is written into a book: bump the book, pass the turn on, notify the members.
    private func advanceBook(
        _ bookID: DiaryBook.ID, after diary: Diary, in transaction: any StorageTransaction
    ) async throws {
        guard var book = try await transaction.book(bookID) else { return }
        let ordered = try await Self.membersInOrder(bookID, in: transaction)
        book.updatedAt = diary.createdAt
        if book.currentTurn == diary.authorID || book.currentTurn == nil {
            book.currentTurn = Self.member(after: diary.authorID, in: ordered)
            if let next = book.currentTurn, next != diary.authorID {
                try await notify(next, .yourTurn, actor: diary.authorID, bookID: bookID, in: transaction)
            }
        }
        try await transaction.put(.book(book))
        for member in ordered where member.userID != diary.authorID {
            try await notify(
                member.userID, .newEntryInBook, actor: diary.authorID, bookID: bookID, diaryID: diary.id,
                in: transaction)
        }
    }
}

extension DiaryEdit {
    /// The edit with its text, tags and mood as the engine keeps them (trimmed, normalised), or the error that says
    /// which field is wrong. Images and visibility are checked against the store and the entry.
    package func validated() throws -> DiaryEdit {
        var edit = self
        edit.body = try body.map { try Validation.text($0, field: "body", maximum: Validation.maximumBodyLength) }
        edit.title = try title.map {
            try Validation.text($0, field: "title", maximum: Validation.maximumTitleLength, allowEmpty: true)
        }
        edit.tags = try tags.map(Validation.tags)
        edit.mood = try mood.map(Validation.mood)
        return edit
    }
}

extension Diary {
    /// Sets the fields `edit` sets.
    package mutating func apply(_ edit: DiaryEdit) {
        if let day = edit.day { self.day = day }
        if let title = edit.title { self.title = title }
        if let body = edit.body { self.body = body }
        if let mood = edit.mood { self.mood = mood }
        if let tags = edit.tags { self.tags = tags }
        if let images = edit.images { self.images = images }
        if let visibility = edit.visibility { self.visibility = visibility }
    }

    /// Makes the entry the trace a deleted entry in a book leaves: its id, author, book, day and times stay, so its
    /// place in the book does, and its content goes.
    package mutating func clearAsDeletedInBook(at date: Date) {
        title = ""
        body = ""
        mood = nil
        tags = []
        images = []
        deletedAt = date
        updatedAt = date
    }
}
