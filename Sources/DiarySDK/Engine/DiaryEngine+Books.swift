import Foundation

extension DiaryEngine: BookRepository {
    public func createBook(_ draft: BookDraft) async throws -> DiaryBook {
        let title = try Validation.text(draft.title, field: "title", maximum: Validation.maximumTitleLength)
        let color = try Validation.color(draft.coverColor)
        let stickers = try Self.checkStickers(draft.stickers)
        let now = self.now
        let id: DiaryBook.ID = newID()
        return try await write("books.createBook", joining: draft) { transaction, actor in
            let book = DiaryBook(
                id: id, title: title, coverColor: color, stickers: stickers, ownerID: actor, currentTurn: actor,
                createdAt: now, updatedAt: now)
            transaction.put(.book(book))
            transaction.put(.membership(MembershipRecord(bookID: id, userID: actor, role: .owner, joinedAt: now)))
            return book
        }
    }

    public func updateBook(_ id: DiaryBook.ID, _ edit: BookEdit) async throws -> DiaryBook {
        let title = try edit.title.map { try Validation.text($0, field: "title", maximum: Validation.maximumTitleLength) }
        let color = try edit.coverColor.map(Validation.color)
        let stickers = try edit.stickers.map(Self.checkStickers)
        let now = self.now
        return try await write("books.updateBook", joining: id, edit) { transaction, actor in
            var book = try Self.memberBook(id, actor: actor, in: transaction.database)
            if let title { book.title = title }
            if let color { book.coverColor = color }
            if let stickers { book.stickers = stickers }
            book.updatedAt = now
            transaction.put(.book(book))
            return book
        }
    }

    public func deleteBook(_ id: DiaryBook.ID) async throws {
        try await write("books.deleteBook", joining: id) { transaction, actor in
            let book = try Self.memberBook(id, actor: actor, in: transaction.database)
            guard book.ownerID == actor else { throw DiaryError.forbidden("only the owner may delete book \(id)") }
            self.deleteBook(id, in: &transaction)
        }
    }

    public func book(_ id: DiaryBook.ID) async throws -> DiaryBook {
        try await read("books.book") { db, viewer in try Self.memberBook(id, actor: viewer, in: db) }
    }

    public func books(page: PageRequest) async throws -> Page<DiaryBook> {
        try await read("books.books") { db, viewer in
            let books = (db.bookIDsByMember[viewer] ?? []).compactMap { db.books[$0] }
            return try Paginator.page(
                ordered: books, key: { SortKey($0.updatedAt, $0.id.rawValue) }, descending: true, request: page)
        }
    }

    public func inviteCode(for id: DiaryBook.ID) async throws -> String {
        let candidates = (0..<8).map { _ in Self.makeInviteCode() }
        return try await write("books.inviteCode", joining: id) { transaction, actor in
            var book = try Self.memberBook(id, actor: actor, in: transaction.database)
            if let code = book.inviteCode { return code }
            book.inviteCode = try Self.unusedCode(candidates, in: transaction.database)
            transaction.put(.book(book))
            return book.inviteCode!
        }
    }

    public func rotateInviteCode(for id: DiaryBook.ID) async throws -> String {
        let candidates = (0..<8).map { _ in Self.makeInviteCode() }
        return try await write("books.rotateInviteCode", joining: id) { transaction, actor in
            var book = try Self.memberBook(id, actor: actor, in: transaction.database)
            guard book.ownerID == actor else { throw DiaryError.forbidden("only the owner may rotate the invite code") }
            book.inviteCode = try Self.unusedCode(candidates, in: transaction.database)
            transaction.put(.book(book))
            return book.inviteCode!
        }
    }

    public func join(inviteCode: String) async throws -> DiaryBook {
        let code = try Validation.text(inviteCode, field: "inviteCode", maximum: 32).uppercased()
        let now = self.now
        return try await write("books.join", joining: code) { transaction, actor in
            let db = transaction.database
            guard let bookID = db.bookIDsByInviteCode[code], var book = db.books[bookID],
                !AccessPolicy.blockedEitherWay(book.ownerID, actor, in: db)
            else { throw DiaryError.notFound("invite code \(code)") }
            guard !AccessPolicy.isMember(actor, of: bookID, in: db) else {
                throw DiaryError(.conflict, "you are already a member of this book")
            }
            // Joining order decides turns, so it must be strict even when two members join in the same microsecond.
            let last = Self.membersInOrder(bookID, in: db).last?.joinedAt ?? now
            let joinedAt = max(now, last.addingTimeInterval(0.000_001))
            transaction.put(.membership(MembershipRecord(bookID: bookID, userID: actor, role: .member, joinedAt: joinedAt)))
            book.updatedAt = now
            transaction.put(.book(book))
            for member in Self.membersInOrder(bookID, in: transaction.database) where member.userID != actor {
                self.notify(member.userID, .newMember, actor: actor, bookID: bookID, in: &transaction)
            }
            return book
        }
    }

    public func leave(_ id: DiaryBook.ID) async throws {
        try await write("books.leave", joining: id) { transaction, actor in
            _ = try Self.memberBook(id, actor: actor, in: transaction.database)
            self.removeMembership(actor, from: id, in: &transaction)
        }
    }

    public func removeMember(_ userID: User.ID, from id: DiaryBook.ID) async throws {
        try await write("books.removeMember", joining: userID, id) { transaction, actor in
            let book = try Self.memberBook(id, actor: actor, in: transaction.database)
            guard book.ownerID == actor else { throw DiaryError.forbidden("only the owner may remove members") }
            guard userID != actor else {
                throw DiaryError.invalid("userID", .notAllowed, "the owner leaves a book instead of removing themself")
            }
            guard AccessPolicy.isMember(userID, of: id, in: transaction.database) else {
                throw DiaryError.notFound("member \(userID)")
            }
            self.removeMembership(userID, from: id, in: &transaction)
        }
    }

    public func members(of id: DiaryBook.ID) async throws -> [BookMember] {
        try await read("books.members") { db, viewer in
            _ = try Self.memberBook(id, actor: viewer, in: db)
            return Self.membersInOrder(id, in: db).compactMap { record in
                AccessPolicy.summary(of: record.userID, in: db).map {
                    BookMember(bookID: id, user: $0, role: record.role, joinedAt: record.joinedAt)
                }
            }
        }
    }

    public func nudge(_ id: DiaryBook.ID) async throws {
        try await write("books.nudge", joining: id) { transaction, actor in
            let book = try Self.memberBook(id, actor: actor, in: transaction.database)
            guard let turn = book.currentTurn, turn != actor else {
                throw DiaryError(.conflict, "it is your own turn to write")
            }
            self.notify(turn, .nudge, actor: actor, bookID: id, in: &transaction)
        }
    }

    // MARK: - Helpers

    static func memberBook(_ id: DiaryBook.ID, actor: User.ID, in db: DiaryDatabase) throws -> DiaryBook {
        guard let book = db.books[id], AccessPolicy.isMember(actor, of: id, in: db) else {
            throw DiaryError.notFound("book \(id)")
        }
        return book
    }

    static func checkStickers(_ stickers: [Sticker]) throws -> [Sticker] {
        guard stickers.count <= 30 else { throw DiaryError.invalid("stickers", .tooMany, "a cover holds at most 30 stickers") }
        for sticker in stickers {
            _ = try Validation.text(sticker.name, field: "stickers", maximum: 64)
            guard (0...1).contains(sticker.x), (0...1).contains(sticker.y), sticker.rotation.isFinite else {
                throw DiaryError.invalid("stickers", .invalidFormat, "sticker positions must be within 0…1")
            }
        }
        return stickers
    }

    /// Eight characters from an alphabet without look-alikes (no 0/O, 1/I/L).
    static func makeInviteCode() -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<8).map { _ in alphabet.randomElement(using: &generator)! })
    }

    private static func unusedCode(_ candidates: [String], in db: DiaryDatabase) throws -> String {
        guard let code = candidates.first(where: { db.bookIDsByInviteCode[$0] == nil }) else {
            throw DiaryError(.conflict, "could not find an unused invite code; try again")
        }
        return code
    }
}
