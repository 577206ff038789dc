import Foundation

extension DiaryEngine: DiaryRepository {
    public func write(_ draft: DiaryDraft) async throws -> Diary {
        let body = try Validation.text(draft.body, field: "body", maximum: Validation.maximumBodyLength)
        let title = try Validation.text(draft.title, field: "title", maximum: Validation.maximumTitleLength, allowEmpty: true)
        let tags = try Validation.tags(draft.tags)
        let mood = try Validation.mood(draft.mood)
        try Self.checkVisibility(draft.visibility, bookID: draft.bookID)
        let now = self.now
        let id: Diary.ID = newID()
        return try await write("diaries.write", joining: draft) { transaction, actor in
            try Self.checkImages(draft.images, owner: actor, in: transaction.database)
            if let bookID = draft.bookID {
                guard AccessPolicy.isMember(actor, of: bookID, in: transaction.database) else {
                    throw DiaryError.notFound("book \(bookID)")
                }
            }
            let day = draft.day ?? LocalDate(now, in: self.timeZone(of: actor, in: transaction.database))
            let diary = Diary(
                id: id, authorID: actor, bookID: draft.bookID, day: day, title: title, body: body, mood: mood, tags: tags,
                images: draft.images, visibility: draft.visibility, createdAt: now, updatedAt: now)
            transaction.put(.diary(diary))
            if let bookID = draft.bookID { self.advanceBook(bookID, after: diary, in: &transaction) }
            return diary
        }
    }

    public func edit(_ id: Diary.ID, _ edit: DiaryEdit) async throws -> Diary {
        let body = try edit.body.map { try Validation.text($0, field: "body", maximum: Validation.maximumBodyLength) }
        let title = try edit.title.map {
            try Validation.text($0, field: "title", maximum: Validation.maximumTitleLength, allowEmpty: true)
        }
        let tags = try edit.tags.map(Validation.tags)
        let mood = try edit.mood.map(Validation.mood)
        let now = self.now
        return try await write("diaries.edit", joining: id, edit) { transaction, actor in
            var diary = try Self.ownDiary(id, actor: actor, in: transaction.database)
            if let images = edit.images { try Self.checkImages(images, owner: actor, in: transaction.database) }
            let visibility = edit.visibility ?? diary.visibility
            try Self.checkVisibility(visibility, bookID: diary.bookID)
            let oldImages = diary.images.map(\.id)
            if let day = edit.day { diary.day = day }
            if let title { diary.title = title }
            if let body { diary.body = body }
            if let mood { diary.mood = mood }
            if let tags { diary.tags = tags }
            if let images = edit.images { diary.images = images }
            diary.visibility = visibility
            diary.updatedAt = now
            transaction.put(.diary(diary))
            Self.removeUnreferencedAttachments(oldImages, in: &transaction)
            return diary
        }
    }

    public func delete(_ id: Diary.ID) async throws {
        let now = self.now
        try await write("diaries.delete", joining: id) { transaction, actor in
            var diary = try Self.ownDiary(id, actor: actor, in: transaction.database)
            guard let bookID = diary.bookID else {
                self.deleteDiary(id, in: &transaction)
                return
            }
            self.deleteComments(on: .diary(id), in: &transaction)
            let images = diary.images.map(\.id)
            diary.title = ""
            diary.body = ""
            diary.mood = nil
            diary.tags = []
            diary.images = []
            diary.deletedAt = now
            diary.updatedAt = now
            transaction.put(.diary(diary))
            Self.removeUnreferencedAttachments(images, in: &transaction)
            if var book = transaction.database.books[bookID] {
                book.updatedAt = now
                transaction.put(.book(book))
            }
        }
    }

    public func setHidden(_ id: Diary.ID, _ isHidden: Bool) async throws -> Diary {
        try await updateOwn(id, operation: "diaries.setHidden", value: isHidden) { $0.isHidden = isHidden }
    }

    public func setFavourite(_ id: Diary.ID, _ isFavourite: Bool) async throws -> Diary {
        try await updateOwn(id, operation: "diaries.setFavourite", value: isFavourite) { $0.isFavourite = isFavourite }
    }

    public func entry(_ id: Diary.ID) async throws -> Diary {
        try await read("diaries.entry") { db, viewer in
            guard let diary = db.diaries[id], AccessPolicy.canSee(diary, viewer: viewer, in: db) else {
                throw DiaryError.notFound("entry \(id)")
            }
            return diary
        }
    }

    public func entries(_ query: DiaryQuery, page: PageRequest) async throws -> Page<Diary> {
        try await read("diaries.entries") { db, viewer in
            let tag = query.tag?.lowercased()
            let isMatch = { (diary: Diary) -> Bool in
                guard AccessPolicy.canSee(diary, viewer: viewer, in: db) else { return false }
                if diary.isHidden && !query.includeHidden { return false }
                if query.favouritesOnly && !diary.isFavourite { return false }
                if let month = query.month, diary.day.yearMonth != month { return false }
                if let day = query.day, diary.day != day { return false }
                if let tag, !diary.tags.contains(where: { $0.lowercased() == tag }) { return false }
                return true
            }
            let candidates: Set<Diary.ID>
            if let bookID = query.bookID {
                guard AccessPolicy.isMember(viewer, of: bookID, in: db) else { throw DiaryError.notFound("book \(bookID)") }
                candidates = db.diariesByBook[bookID] ?? []
            } else {
                let author = query.authorID ?? viewer
                guard AccessPolicy.canSee(user: author, viewer: viewer, in: db) else {
                    throw DiaryError.notFound("user \(author)")
                }
                if let month = query.month ?? query.day?.yearMonth {
                    candidates = db.diariesByAuthorMonth[.init(authorID: author, month: month)] ?? []
                } else {
                    // Walk the author's ordered listing (or its tag's) and stop once the page is full.
                    let keys: SortedKeyIndex?
                    if let tag {
                        keys = db.diaryOrderByAuthorTag[.init(authorID: author, tag: tag)]
                    } else {
                        keys = db.diaryOrderByAuthor[author]
                    }
                    return try Paginator.page(keys: keys ?? SortedKeyIndex(), descending: true, request: page) { key in
                        db.diaries[Diary.ID(key.id)].flatMap { isMatch($0) ? $0 : nil }
                    }
                }
            }
            let matches = candidates.compactMap { db.diaries[$0] }.filter(isMatch)
            return try Paginator.page(ordered: matches, key: DiaryDatabase.listingKey, descending: true, request: page)
        }
    }

    public func calendar(_ month: YearMonth, of userID: User.ID?) async throws -> MonthCalendar {
        try await read("diaries.calendar") { db, viewer in
            let owner = userID ?? viewer
            guard AccessPolicy.canSee(user: owner, viewer: viewer, in: db) else { throw DiaryError.notFound("user \(owner)") }
            let key = DiaryDatabase.AuthorMonth(authorID: owner, month: month)
            var days: [LocalDate: MonthCalendar.Day] = [:]
            var moodTimes: [LocalDate: Date] = [:]
            for id in db.diariesByAuthorMonth[key] ?? [] {
                guard let diary = db.diaries[id], Self.countsForCalendar(diary, viewer: viewer, in: db) else { continue }
                var day = days[diary.day] ?? .init(date: diary.day, mood: nil, entryCount: 0, postCount: 0)
                day.entryCount += 1
                if let mood = diary.mood, moodTimes[diary.day].map({ diary.createdAt > $0 }) ?? true {
                    day.mood = mood
                    moodTimes[diary.day] = diary.createdAt
                }
                days[diary.day] = day
            }
            for id in db.postsByAuthorMonth[key] ?? [] {
                guard let post = db.posts[id], Self.countsForCalendar(post, viewer: viewer, in: db) else { continue }
                var day = days[post.day] ?? .init(date: post.day, mood: nil, entryCount: 0, postCount: 0)
                day.postCount += 1
                days[post.day] = day
            }
            return MonthCalendar(month: month, days: days.values.sorted { $0.date < $1.date })
        }
    }

    public func streak(of userID: User.ID?) async throws -> Streak {
        let now = self.now
        return try await read("diaries.streak") { db, viewer in
            let owner = userID ?? viewer
            guard AccessPolicy.canSee(user: owner, viewer: viewer, in: db) else { throw DiaryError.notFound("user \(owner)") }
            var days: [LocalDate] = []
            for id in db.diariesByAuthor[owner] ?? [] {
                if let diary = db.diaries[id], Self.countsForCalendar(diary, viewer: viewer, in: db) { days.append(diary.day) }
            }
            for id in db.postsByAuthor[owner] ?? [] {
                if let post = db.posts[id], Self.countsForCalendar(post, viewer: viewer, in: db) { days.append(post.day) }
            }
            let today = LocalDate(now, in: self.timeZone(of: owner, in: db))
            return StreakCalculator.streak(days: days, today: today)
        }
    }

    // MARK: - Helpers

    static func countsForCalendar(_ diary: Diary, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        !diary.isHidden && diary.deletedAt == nil && AccessPolicy.canSee(diary, viewer: viewer, in: db)
    }

    static func countsForCalendar(_ post: PostRecord, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        post.authorID == viewer || (!post.isAnonymous && AccessPolicy.canSee(post, viewer: viewer, in: db))
    }

    static func checkVisibility(_ visibility: Diary.Visibility, bookID: DiaryBook.ID?) throws {
        if bookID != nil && visibility != .members {
            throw DiaryError.invalid("visibility", .notAllowed, "entries in a book are visible to its members only")
        }
        if bookID == nil && visibility == .members {
            throw DiaryError.invalid("visibility", .notAllowed, "members visibility needs a book")
        }
    }

    /// An entry the actor wrote: `.notFound` when they cannot see it, `.forbidden` when someone else wrote it.
    static func ownDiary(_ id: Diary.ID, actor: User.ID, in db: DiaryDatabase) throws -> Diary {
        guard let diary = db.diaries[id], diary.deletedAt == nil, AccessPolicy.canSee(diary, viewer: actor, in: db) else {
            throw DiaryError.notFound("entry \(id)")
        }
        guard diary.authorID == actor else { throw DiaryError.forbidden("only the author may change entry \(id)") }
        return diary
    }

    private func updateOwn(
        _ id: Diary.ID, operation: String, value: Bool, _ change: @escaping @Sendable (inout Diary) -> Void
    ) async throws -> Diary {
        try await write(operation, joining: id, value) { transaction, actor in
            var diary = try Self.ownDiary(id, actor: actor, in: transaction.database)
            change(&diary)
            transaction.put(.diary(diary))
            return diary
        }
    }

    /// After an entry is written into a book: bump the book, pass the turn on, notify the members.
    private func advanceBook(_ bookID: DiaryBook.ID, after diary: Diary, in transaction: inout DiaryTransaction) {
        guard var book = transaction.database.books[bookID] else { return }
        let ordered = Self.membersInOrder(bookID, in: transaction.database)
        book.updatedAt = diary.createdAt
        if book.currentTurn == diary.authorID || book.currentTurn == nil {
            book.currentTurn = Self.member(after: diary.authorID, in: ordered)
            if let next = book.currentTurn, next != diary.authorID {
                notify(next, .yourTurn, actor: diary.authorID, bookID: bookID, in: &transaction)
            }
        }
        transaction.put(.book(book))
        for member in ordered where member.userID != diary.authorID {
            notify(member.userID, .newEntryInBook, actor: diary.authorID, bookID: bookID, diaryID: diary.id, in: &transaction)
        }
    }
}
