import Foundation

extension DiaryEngine: BookRepository {
    @_spi(Engine)
    public func createBook(_ draft: BookDraft) async throws -> DiaryBook {
        let title = try Validation.text(draft.title, field: "title", maximum: Validation.maximumTitleLength)
        let color = try Validation.color(draft.coverColor)
        let stickers = try Self.checkStickers(draft.stickers)
        let now = self.now
        let id: DiaryBook.ID = newID()
        return try await write("books.createBook", joining: draft) { transaction, actor in
            let book = DiaryBook(
                id: id, title: title, coverColor: color, stickers: stickers, ownerID: actor.id, currentTurn: actor.id,
                createdAt: now, updatedAt: now)
            try await transaction.put(.book(book))
            try await transaction.put(
                .membership(MembershipRecord(bookID: id, userID: actor.id, role: .owner, joinedAt: now)))
            return book
        }
    }

    @_spi(Engine)
    public func updateBook(_ id: DiaryBook.ID, _ edit: BookEdit) async throws -> DiaryBook {
        let title = try edit.title.map { try Validation.text($0, field: "title", maximum: Validation.maximumTitleLength) }
        let color = try edit.coverColor.map(Validation.color)
        let stickers = try edit.stickers.map(Self.checkStickers)
        let now = self.now
        return try await write("books.updateBook", joining: id, edit) { transaction, actor in
            var book = try await Self.memberBook(id, actor: actor, in: transaction)
            if let title { book.title = title }
            if let color { book.coverColor = color }
            if let stickers { book.stickers = stickers }
            book.updatedAt = now
            try await transaction.put(.book(book))
            return book
        }
    }

    @_spi(Engine)
    public func deleteBook(_ id: DiaryBook.ID) async throws {
        try await write("books.deleteBook", joining: id) { transaction, actor in
            let book = try await Self.memberBook(id, actor: actor, in: transaction)
            guard book.ownerID == actor.id else { throw DiaryError.forbidden("only the owner may delete book \(id)") }
            try await self.deleteBook(id, in: transaction)
        }
    }

    @_spi(Engine)
    public func book(_ id: DiaryBook.ID) async throws -> DiaryBook {
        try await read("books.book") { db, viewer in try await Self.memberBook(id, actor: viewer, in: db) }
    }

    @_spi(Engine)
    public func books(page: PageRequest) async throws -> Page<DiaryBook> {
        try await read("books.books") { db, viewer in
            var books: [DiaryBook] = []
            for membership in try await db.rows(StorageSchema.membershipsByUser, equalTo: viewer.id) {
                if let book = try await db.book(membership.bookID) { books.append(book) }
            }
            return try Paginator.page(
                ordered: books, key: { SortKey($0.updatedAt, $0.id.rawValue) }, descending: true, request: page)
        }
    }

    @_spi(Engine)
    public func inviteCode(for id: DiaryBook.ID) async throws -> String {
        let candidates = (0..<8).map { _ in Self.makeInviteCode() }
        return try await write("books.inviteCode", joining: id) { transaction, actor in
            var book = try await Self.memberBook(id, actor: actor, in: transaction)
            if let code = book.inviteCode { return code }
            book.inviteCode = try await Self.unusedCode(candidates, in: transaction)
            try await transaction.put(.book(book))
            return book.inviteCode!
        }
    }

    @_spi(Engine)
    public func rotateInviteCode(for id: DiaryBook.ID) async throws -> String {
        let candidates = (0..<8).map { _ in Self.makeInviteCode() }
        return try await write("books.rotateInviteCode", joining: id) { transaction, actor in
            var book = try await Self.memberBook(id, actor: actor, in: transaction)
            guard book.ownerID == actor.id else {
                throw DiaryError.forbidden("only the owner may rotate the invite code")
            }
            book.inviteCode = try await Self.unusedCode(candidates, in: transaction)
            try await transaction.put(.book(book))
            return book.inviteCode!
        }
    }

    @_spi(Engine)
    public func join(inviteCode: String) async throws -> DiaryBook {
        let code = try Validation.text(inviteCode, field: "inviteCode", maximum: 32).uppercased()
        let now = self.now
        return try await write("books.join", joining: code) { transaction, actor in
            guard var book = try await transaction.row(StorageSchema.booksByInviteCode, equalTo: code),
                try await !AccessPolicy.blockedEitherWay(book.ownerID, actor.id, in: transaction)
            else { throw DiaryError.notFound("invite code \(code)") }
            let bookID = book.id
            guard try await !AccessPolicy.isMember(actor.id, of: bookID, in: transaction) else {
                throw DiaryError(.conflict, "you are already a member of this book")
            }
            // Joining order decides turns, so it must be strict even when two members join in the same microsecond.
            let last = try await Self.membersInOrder(bookID, in: transaction).last?.joinedAt ?? now
            let joinedAt = max(now, last.addingTimeInterval(0.000_001))
            try await transaction.put(
                .membership(MembershipRecord(bookID: bookID, userID: actor.id, role: .member, joinedAt: joinedAt)))
            book.updatedAt = now
            try await transaction.put(.book(book))
            for member in try await Self.membersInOrder(bookID, in: transaction) where member.userID != actor.id {
                try await self.notify(member.userID, .newMember, actor: actor.id, bookID: bookID, in: transaction)
            }
            return book
        }
    }

    @_spi(Engine)
    public func leave(_ id: DiaryBook.ID) async throws {
        try await write("books.leave", joining: id) { transaction, actor in
            _ = try await Self.memberBook(id, actor: actor, in: transaction)
            try await self.removeMembership(actor.id, from: id, in: transaction)
        }
    }

    @_spi(Engine)
    public func removeMember(_ userID: User.ID, from id: DiaryBook.ID) async throws {
        try await write("books.removeMember", joining: userID, id) { transaction, actor in
            let book = try await Self.memberBook(id, actor: actor, in: transaction)
            guard book.ownerID == actor.id else { throw DiaryError.forbidden("only the owner may remove members") }
            guard userID != actor.id else {
                throw DiaryError.invalid("userID", .notAllowed, "the owner leaves a book instead of removing themself")
            }
            guard try await AccessPolicy.isMember(userID, of: id, in: transaction) else {
                throw DiaryError.notFound("member \(userID)")
            }
            try await self.removeMembership(userID, from: id, in: transaction)
        }
    }

    @_spi(Engine)
    public func members(of id: DiaryBook.ID) async throws -> [BookMember] {
        try await read("books.members") { db, viewer in
            _ = try await Self.memberBook(id, actor: viewer, in: db)
            var members: [BookMember] = []
            for record in try await Self.membersInOrder(id, in: db) {
                guard let user = try await AccessPolicy.summary(of: record.userID, in: db) else { continue }
                members.append(BookMember(bookID: id, user: user, role: record.role, joinedAt: record.joinedAt))
            }
            return members
        }
    }

    @_spi(Engine)
    public func nudge(_ id: DiaryBook.ID) async throws {
        try await write("books.nudge", joining: id) { transaction, actor in
            let book = try await Self.memberBook(id, actor: actor, in: transaction)
            guard let turn = book.currentTurn, turn != actor.id else {
                throw DiaryError(.conflict, "it is your own turn to write")
            }
            try await self.notify(turn, .nudge, actor: actor.id, bookID: id, in: transaction)
        }
    }

    // MARK: - Helpers

    /// A book the actor is a member of: `.notFound` otherwise, so a non-member learns nothing about it.
    static func memberBook(_ id: DiaryBook.ID, actor: Viewer, in db: any StorageReader) async throws -> DiaryBook {
        guard let book = try await db.book(id), try await AccessPolicy.isMember(actor.id, of: id, in: db) else {
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

    private static func unusedCode(_ candidates: [String], in db: any StorageReader) async throws -> String {
        for code in candidates {
            if try await db.row(StorageSchema.booksByInviteCode, equalTo: code) == nil { return code }
        }
        throw DiaryError(.conflict, "could not find an unused invite code; try again")
    }
}
