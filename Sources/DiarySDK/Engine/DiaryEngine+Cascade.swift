import Foundation

/// Deletions that take dependent rows with them, shared by the repositories and by withdrawal.
///
/// Every dependent row is found through an index declared in ``StorageSchema``, so a deletion costs what it removes,
/// not the size of the store.
extension DiaryEngine {
    /// Removes an entry, post or comment row and records its id as retired (``RetiredIDRecord``), so that no
    /// create, with an id a client chose, can take it again.
    private func retire(_ key: RecordKey, in transaction: any StorageTransaction) async throws {
        let id: UUID
        switch key {
        case .diary(let diary): id = diary.rawValue
        case .post(let post): id = post.rawValue
        case .comment(let comment): id = comment.rawValue
        default: preconditionFailure("only entries, posts and comments retire their ids")
        }
        try await transaction.remove(key)
        try await transaction.put(.retiredID(RetiredIDRecord(id: id, kind: key.kind, retiredAt: now)))
    }

    /// Every row that holds `id` or held it: a chosen id is unique across entries, posts and comments.
    package static func keys(usedBy id: UUID) -> [RecordKey] {
        [.diary(Diary.ID(id)), .post(Post.ID(id)), .comment(Comment.ID(id)), .retiredID(id)]
    }

    /// Whether `id` is a random UUID (RFC 9562 version 4, variant 10): the only kind a client may choose, since any
    /// other carries what it was made from (a version 1 UUID its device's address, a version 7 UUID its time), which
    /// could tie an anonymous post to its author's other content.
    package static func isRandomUUID(_ id: UUID) -> Bool {
        id.uuid.6 >> 4 == 4 && id.uuid.8 & 0xC0 == 0x80
    }

    /// The id of a new entry, post or comment: `chosen`, the id its client picked (an entry written offline keeps
    /// its id), or a new one.
    ///
    /// - Throws: ``DiaryError/Code/invalidInput`` (field `id`, ``DiaryError/Reason/invalidFormat``) for a UUID that
    ///   is not random (version 4); ``DiaryError/Code/conflict`` (field `id`, ``DiaryError/Reason/alreadyUsed``)
    ///   when an entry, post or comment has or had that id, so an id never names two things, and a create retried
    ///   after its row was deleted never brings it back. The answer is the same for a live row, whoever owns it, and
    ///   a deleted one: a client learns nothing it did not know.
    package func claimID<Entity>(
        _ chosen: EntityID<Entity>?, in transaction: any StorageTransaction
    ) async throws -> EntityID<Entity> {
        guard let chosen else { return newID() }
        let uuid = chosen.rawValue
        guard Self.isRandomUUID(uuid) else {
            throw DiaryError.invalid("id", .invalidFormat, "the id \(chosen) is not a random (version 4) UUID")
        }
        // One answer whether the id's row exists or was deleted, and whoever it belongs to: a user blocked from a post
        // must not learn by this whether it still exists.
        guard try await transaction.records(Self.keys(usedBy: uuid)).isEmpty else {
            throw DiaryError(.conflict, "the id \(chosen) is or was in use; choose a new one", field: "id", reason: .alreadyUsed)
        }
        return chosen
    }

    /// Deletes a comment and its replies.
    package func deleteComment(_ id: Comment.ID, in transaction: any StorageTransaction) async throws {
        for reply in try await transaction.rows(StorageSchema.commentsByParent, equalTo: id) {
            try await retire(.comment(reply.id), in: transaction)
        }
        try await retire(.comment(id), in: transaction)
    }

    /// Deletes every comment on an entry or a post, replies included (they share their parent's target).
    package func deleteComments(on target: CommentTarget, in transaction: any StorageTransaction) async throws {
        for comment in try await transaction.rows(StorageSchema.commentsByTarget, equalTo: target) {
            try await retire(.comment(comment.id), in: transaction)
        }
    }

    /// Deletes a post with its comments and likes, and the images nothing else of its author's shows.
    package func deletePost(_ id: Post.ID, in transaction: any StorageTransaction) async throws {
        guard let post = try await transaction.post(id) else { return }
        try await deleteComments(on: .post(id), in: transaction)
        for like in try await transaction.rows(StorageSchema.likesByPost, equalTo: id) {
            try await transaction.remove(.like(like.userID, id))
        }
        try await retire(.post(id), in: transaction)
        try await Self.removeUnreferencedAttachments(post.images.map(\.id), in: transaction)
    }

    /// Deletes an entry with its comments, and the images nothing else of its author's shows.
    package func deleteDiary(_ id: Diary.ID, in transaction: any StorageTransaction) async throws {
        guard let diary = try await transaction.diary(id) else { return }
        try await deleteComments(on: .diary(id), in: transaction)
        try await retire(.diary(id), in: transaction)
        try await Self.removeUnreferencedAttachments(diary.images.map(\.id), in: transaction)
    }

    /// Deletes a book with its entries and memberships.
    package func deleteBook(_ id: DiaryBook.ID, in transaction: any StorageTransaction) async throws {
        for diary in try await transaction.rows(StorageSchema.diariesByBook, equalTo: id) {
            try await deleteDiary(diary.id, in: transaction)
        }
        for membership in try await transaction.rows(StorageSchema.membershipsByBook, equalTo: id) {
            try await transaction.remove(.membership(id, membership.userID))
        }
        try await transaction.remove(.book(id))
    }

    /// Removes a member from a book, handing over ownership and the turn as needed; deletes an emptied book.
    package func removeMembership(
        _ userID: User.ID, from bookID: DiaryBook.ID, in transaction: any StorageTransaction
    ) async throws {
        guard var book = try await transaction.book(bookID) else { return }
        let ordered = try await Self.membersInOrder(bookID, in: transaction)
        let remaining = ordered.filter { $0.userID != userID }
        guard !remaining.isEmpty else {
            try await deleteBook(bookID, in: transaction)
            return
        }
        if book.currentTurn == userID {
            // The turn passes on as when its holder writes, and the next writer is told; nobody passed it to them,
            // so the notification has no actor (and survives the leaver's account being deleted).
            book.currentTurn = Self.member(after: userID, in: ordered)
            if let next = book.currentTurn {
                try await notify(next, .yourTurn, actor: nil, bookID: bookID, in: transaction)
            }
        }
        if book.ownerID == userID, var heir = remaining.first {
            heir.role = .owner
            try await transaction.put(.membership(heir))
            book.ownerID = heir.userID
        }
        book.updatedAt = now
        try await transaction.remove(.membership(bookID, userID))
        try await transaction.put(.book(book))
    }

    /// A book's memberships in joining order (ties broken by user id).
    package static func membersInOrder(
        _ bookID: DiaryBook.ID, in db: any StorageReader
    ) async throws -> [MembershipRecord] {
        try await db.rows(StorageSchema.membershipsByBook, equalTo: bookID)
            .sorted { ($0.joinedAt, $0.userID) < ($1.joinedAt, $1.userID) }
    }

    /// The member after `userID` in joining order, wrapping round; `nil` when `userID` is the only one.
    package static func member(after userID: User.ID, in ordered: [MembershipRecord]) -> User.ID? {
        guard let index = ordered.firstIndex(where: { $0.userID == userID }) else { return ordered.first?.userID }
        guard ordered.count > 1 else { return userID }
        return ordered[(index + 1) % ordered.count].userID
    }

    /// Deletes an account and everything it wrote.
    package func deleteAccount(_ userID: User.ID, in transaction: any StorageTransaction) async throws {
        for membership in try await transaction.rows(StorageSchema.membershipsByUser, equalTo: userID) {
            try await removeMembership(userID, from: membership.bookID, in: transaction)
        }
        for diary in try await transaction.rows(StorageSchema.diariesByAuthor, equalTo: userID) {
            try await deleteDiary(diary.id, in: transaction)
        }
        for post in try await transaction.rows(StorageSchema.postsByAuthor, equalTo: userID) {
            try await deletePost(post.id, in: transaction)
        }
        for comment in try await transaction.rows(StorageSchema.commentsByAuthor, equalTo: userID) {
            try await deleteComment(comment.id, in: transaction)
        }
        for like in try await transaction.rows(StorageSchema.likesByUser, equalTo: userID) {
            try await transaction.remove(.like(userID, like.postID))
        }
        for edge in try await transaction.rows(StorageSchema.followsByFollower, equalTo: userID) {
            try await transaction.remove(.follow(userID, edge.to))
        }
        for edge in try await transaction.rows(StorageSchema.followsByFollowed, equalTo: userID) {
            try await transaction.remove(.follow(edge.from, userID))
        }
        for edge in try await transaction.rows(StorageSchema.blocksByBlocker, equalTo: userID) {
            try await transaction.remove(.block(userID, edge.to))
        }
        for edge in try await transaction.rows(StorageSchema.blocksByBlocked, equalTo: userID) {
            try await transaction.remove(.block(edge.from, userID))
        }
        for edge in try await transaction.rows(StorageSchema.anonymousBlocksByBlocker, equalTo: userID) {
            try await transaction.remove(.anonymousBlock(userID, edge.to))
        }
        for edge in try await transaction.rows(StorageSchema.anonymousBlocksByBlocked, equalTo: userID) {
            try await transaction.remove(.anonymousBlock(edge.from, userID))
        }
        for notification in try await transaction.rows(StorageSchema.notificationsByRecipient, equalTo: userID) {
            try await transaction.remove(.notification(notification.id))
        }
        // Named or anonymous: the index lists a notification under whichever actor it keeps.
        for notification in try await transaction.rows(StorageSchema.notificationsByActor, equalTo: userID) {
            try await transaction.remove(.notification(notification.id))
        }
        for report in try await transaction.rows(StorageSchema.reportsByReporter, equalTo: userID) {
            try await transaction.remove(.report(report.id))
        }
        for blog in try await transaction.rows(StorageSchema.blogsByOwner, equalTo: userID) {
            try await transaction.remove(.blog(blog.id))
        }
        for device in try await transaction.rows(StorageSchema.devicesByUser, equalTo: userID) {
            try await transaction.remove(.device(userID, device.device.token))
        }
        for session in try await transaction.rows(StorageSchema.sessionsByUser, equalTo: userID) {
            try await transaction.remove(.session(session.tokenHash))
        }
        for attachment in try await transaction.rows(StorageSchema.attachmentsByOwner, equalTo: userID) {
            try await transaction.remove(.attachment(attachment.id))
        }
        try await transaction.remove(.credential(userID))
        try await transaction.remove(.user(userID))
    }
}
