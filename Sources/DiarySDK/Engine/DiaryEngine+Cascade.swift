import Foundation

/// Deletions that take dependent rows with them, shared by the repositories and by withdrawal.
extension DiaryEngine {
    package func deleteComment(_ id: Comment.ID, in transaction: inout DiaryTransaction) {
        for reply in transaction.database.repliesByParent[id] ?? [] { transaction.remove(.comment(reply)) }
        transaction.remove(.comment(id))
    }

    package func deleteComments(on target: CommentTarget, in transaction: inout DiaryTransaction) {
        for id in transaction.database.commentsByTarget[target] ?? [] { transaction.remove(.comment(id)) }
    }

    package func deletePost(_ id: Post.ID, in transaction: inout DiaryTransaction) {
        guard let post = transaction.database.posts[id] else { return }
        deleteComments(on: .post(id), in: &transaction)
        for liker in transaction.database.likersByPost[id] ?? [] { transaction.remove(.like(liker, id)) }
        transaction.remove(.post(id))
        Self.removeUnreferencedAttachments(post.images.map(\.id), in: &transaction)
    }

    package func deleteDiary(_ id: Diary.ID, in transaction: inout DiaryTransaction) {
        guard let diary = transaction.database.diaries[id] else { return }
        deleteComments(on: .diary(id), in: &transaction)
        transaction.remove(.diary(id))
        Self.removeUnreferencedAttachments(diary.images.map(\.id), in: &transaction)
    }

    package func deleteBook(_ id: DiaryBook.ID, in transaction: inout DiaryTransaction) {
        for diaryID in transaction.database.diariesByBook[id] ?? [] { deleteDiary(diaryID, in: &transaction) }
        for member in transaction.database.memberships[id]?.keys.map({ $0 }) ?? [] {
            transaction.remove(.membership(id, member))
        }
        transaction.remove(.book(id))
    }

    /// Removes a member from a book, handing over ownership and the turn as needed; deletes an emptied book.
    package func removeMembership(_ userID: User.ID, from bookID: DiaryBook.ID, in transaction: inout DiaryTransaction) {
        guard var book = transaction.database.books[bookID] else { return }
        let ordered = Self.membersInOrder(bookID, in: transaction.database)
        let remaining = ordered.filter { $0.userID != userID }
        guard !remaining.isEmpty else {
            deleteBook(bookID, in: &transaction)
            return
        }
        if book.currentTurn == userID {
            // The turn passes on as when its holder writes, and the next writer is told; nobody passed it to them,
            // so the notification has no actor (and survives the leaver's account being deleted).
            book.currentTurn = Self.member(after: userID, in: ordered)
            if let next = book.currentTurn {
                notify(next, .yourTurn, actor: nil, bookID: bookID, in: &transaction)
            }
        }
        if book.ownerID == userID, var heir = remaining.first {
            heir.role = .owner
            transaction.put(.membership(heir))
            book.ownerID = heir.userID
        }
        book.updatedAt = now
        transaction.remove(.membership(bookID, userID))
        transaction.put(.book(book))
    }

    package static func membersInOrder(_ bookID: DiaryBook.ID, in db: DiaryDatabase) -> [MembershipRecord] {
        (db.memberships[bookID] ?? [:]).values.sorted { ($0.joinedAt, $0.userID) < ($1.joinedAt, $1.userID) }
    }

    /// The member after `userID` in joining order, wrapping round; `nil` when `userID` is the only one.
    package static func member(after userID: User.ID, in ordered: [MembershipRecord]) -> User.ID? {
        guard let index = ordered.firstIndex(where: { $0.userID == userID }) else { return ordered.first?.userID }
        guard ordered.count > 1 else { return userID }
        return ordered[(index + 1) % ordered.count].userID
    }

    /// Deletes an account and everything it wrote.
    package func deleteAccount(_ userID: User.ID, in transaction: inout DiaryTransaction) {
        let db = transaction.database
        for bookID in db.bookIDsByMember[userID] ?? [] { removeMembership(userID, from: bookID, in: &transaction) }
        for id in transaction.database.diariesByAuthor[userID] ?? [] { deleteDiary(id, in: &transaction) }
        for id in transaction.database.postsByAuthor[userID] ?? [] { deletePost(id, in: &transaction) }
        for id in transaction.database.commentsByAuthor[userID] ?? [] { deleteComment(id, in: &transaction) }
        for postID in transaction.database.likes[userID]?.keys.map({ $0 }) ?? [] {
            transaction.remove(.like(userID, postID))
        }
        for other in transaction.database.follows[userID]?.keys.map({ $0 }) ?? [] { transaction.remove(.follow(userID, other)) }
        for other in transaction.database.followers[userID]?.keys.map({ $0 }) ?? [] { transaction.remove(.follow(other, userID)) }
        for other in transaction.database.blocks[userID]?.keys.map({ $0 }) ?? [] { transaction.remove(.block(userID, other)) }
        for other in transaction.database.blockers[userID] ?? [] { transaction.remove(.block(other, userID)) }
        for other in transaction.database.anonymousBlocks[userID]?.keys.map({ $0 }) ?? [] {
            transaction.remove(.anonymousBlock(userID, other))
        }
        for other in transaction.database.anonymousBlockers[userID] ?? [] { transaction.remove(.anonymousBlock(other, userID)) }
        for id in transaction.database.notificationsByRecipient[userID] ?? [] { transaction.remove(.notification(id)) }
        for notification in transaction.database.notifications.values
        where notification.actorID == userID || notification.anonymousActorID == userID {
            transaction.remove(.notification(notification.id))
        }
        for report in transaction.database.reports.values where report.reporterID == userID {
            transaction.remove(.report(report.id))
        }
        for id in transaction.database.blogsByOwner[userID] ?? [] { transaction.remove(.blog(id)) }
        for token in transaction.database.devices[userID]?.keys.map({ $0 }) ?? [] { transaction.remove(.device(userID, token)) }
        for hash in transaction.database.sessionsByUser[userID] ?? [] { transaction.remove(.session(hash)) }
        for id in transaction.database.attachmentsByOwner[userID] ?? [] { transaction.remove(.attachment(id)) }
        transaction.remove(.credential(userID))
        transaction.remove(.user(userID))
    }
}
