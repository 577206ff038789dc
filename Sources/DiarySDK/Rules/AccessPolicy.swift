import Foundation

/// Who may see what: the visibility, blocking and anonymity rules, written once over the database so every local
/// backend and the reference server apply exactly the same ones.
///
/// Blocking and anonymity meet in one rule: a user block hides the blocked user's *named* content, both ways, and
/// never their anonymous content, because anything that hid anonymous content by who wrote it would tell the viewer
/// who wrote it. Anonymous content is hidden only by an anonymous block (``canSeeAnonymous(by:viewer:in:)``): the
/// viewer blocked the author of one anonymous post or comment without learning who it is, which hides that author's
/// anonymous posts, comments and notifications from that viewer and nothing else.
package enum AccessPolicy {
    /// Whether either user blocked the other.
    package static func blockedEitherWay(_ a: User.ID, _ b: User.ID, in db: DiaryDatabase) -> Bool {
        db.blocks[a]?[b] != nil || db.blocks[b]?[a] != nil
    }

    /// Whether `viewer` may see anonymous content by `author`: always their own; anyone else's unless `viewer`
    /// blocked its author through an anonymous post or comment. User blocks do not count here.
    package static func canSeeAnonymous(by author: User.ID, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        author == viewer || db.anonymousBlocks[viewer]?[author] == nil
    }

    /// Whether `viewer` may see content by `author`, named (no user block either way) or anonymous (no anonymous
    /// block by the viewer).
    package static func canSee(contentBy author: User.ID, isAnonymous: Bool, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        if author == viewer { return true }
        return isAnonymous ? canSeeAnonymous(by: author, viewer: viewer, in: db) : !blockedEitherWay(author, viewer, in: db)
    }

    /// Whether `viewer` may see a user at all: the user exists and there is no block either way.
    package static func canSee(user id: User.ID, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        db.users[id] != nil && (id == viewer || !blockedEitherWay(id, viewer, in: db))
    }

    /// Whether `viewer` is a member of a book.
    package static func isMember(_ viewer: User.ID, of bookID: DiaryBook.ID, in db: DiaryDatabase) -> Bool {
        db.memberships[bookID]?[viewer] != nil
    }

    /// Whether `viewer` may see an entry: private to its author; book entries to members; shared entries to anyone
    /// without a block; hidden entries to the author only; deleted-entry traces to members who chose to see them.
    package static func canSee(_ diary: Diary, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        if diary.deletedAt != nil {
            guard let bookID = diary.bookID, isMember(viewer, of: bookID, in: db) else { return false }
            return db.users[viewer]?.settings?.showsDeletedEntryTraces ?? true
        }
        if diary.authorID == viewer { return true }
        if diary.isHidden { return false }
        if blockedEitherWay(diary.authorID, viewer, in: db) { return false }
        switch diary.visibility {
        case .private:
            return false
        case .members:
            guard let bookID = diary.bookID else { return false }
            return isMember(viewer, of: bookID, in: db)
        case .shared:
            return true
        }
    }

    /// Whether `viewer` may see a post: a named one without a block either way with its author, an anonymous one
    /// unless the viewer blocked its author anonymously.
    package static func canSee(_ post: PostRecord, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        canSee(contentBy: post.authorID, isAnonymous: post.isAnonymous, viewer: viewer, in: db)
    }

    /// Whether `viewer` may see what a comment is attached to.
    package static func canSee(target: CommentTarget, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        switch target {
        case .diary(let id):
            guard let diary = db.diaries[id], diary.deletedAt == nil else { return false }
            return canSee(diary, viewer: viewer, in: db)
        case .post(let id):
            guard let post = db.posts[id] else { return false }
            return canSee(post, viewer: viewer, in: db)
        }
    }

    /// Whether `viewer` may see a comment: its target is visible and its author's content is (see
    /// ``canSee(contentBy:isAnonymous:viewer:in:)``).
    package static func canSee(_ comment: CommentRecord, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        canSee(target: comment.target, viewer: viewer, in: db)
            && canSee(contentBy: comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer, in: db)
    }

    /// Whether `viewer` may see a notification: one with a named actor unless a block stands either way, one from an
    /// anonymous actor unless the viewer blocked them anonymously, one nobody caused always.
    package static func canSee(_ notification: NotificationRecord, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        if let actor = notification.actorID { return !blockedEitherWay(actor, viewer, in: db) }
        if let actor = notification.anonymousActorID { return canSeeAnonymous(by: actor, viewer: viewer, in: db) }
        // Stored before the anonymous actor was kept: the anonymous comment it is about names them.
        if let comment = notification.commentID.flatMap({ db.comments[$0] }), comment.isAnonymous {
            return canSeeAnonymous(by: comment.authorID, viewer: viewer, in: db)
        }
        return true
    }

    /// Whether `viewer` may read an attachment: their own; an avatar of a user they may see; an image of a post or
    /// entry they may see. An image follows its post, so one in an anonymous post is not hidden by a user block
    /// with its (hidden) owner, which would tell the viewer who wrote the post.
    package static func canSee(_ attachment: Attachment, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        let owner = attachment.ownerID
        if owner == viewer { return true }
        if db.users[owner]?.avatar?.id == attachment.id, !blockedEitherWay(owner, viewer, in: db) { return true }
        let inPost = (db.postsByAuthor[owner] ?? []).contains { postID in
            guard let post = db.posts[postID], post.images.contains(where: { $0.id == attachment.id }) else {
                return false
            }
            return canSee(post, viewer: viewer, in: db)
        }
        if inPost { return true }
        return (db.diariesByAuthor[owner] ?? []).contains { diaryID in
            guard let diary = db.diaries[diaryID], diary.images.contains(where: { $0.id == attachment.id }) else {
                return false
            }
            return canSee(diary, viewer: viewer, in: db)
        }
    }

    /// The author as `viewer` may see them: `nil` for someone else's anonymous content.
    package static func author(
        _ authorID: User.ID, isAnonymous: Bool, viewer: User.ID, in db: DiaryDatabase
    ) -> AuthorSummary? {
        if isAnonymous && authorID != viewer { return nil }
        return summary(of: authorID, in: db)
    }

    /// A user's public summary.
    package static func summary(of id: User.ID, in db: DiaryDatabase) -> AuthorSummary? {
        guard let user = db.users[id] else { return nil }
        return AuthorSummary(id: user.id, nickname: user.nickname, avatar: user.avatar)
    }

    /// A user as `viewer` sees them: everything for themself, the public profile for others.
    package static func view(of user: User, viewer: User.ID) -> User {
        user.id == viewer ? user : user.publicProfile
    }

    /// A post as `viewer` sees it: counts leaving out what the viewer may not see; for someone else's anonymous
    /// post, no author and no source (the entry or blog it came from would name its author).
    package static func view(of post: PostRecord, viewer: User.ID, in db: DiaryDatabase) -> Post {
        let likers = db.likersByPost[post.id] ?? []
        let likeCount = likers.count { $0 == viewer || !blockedEitherWay($0, viewer, in: db) }
        // The same test as listing the comments, so a count never says more than the list shows.
        let commentCount = (db.commentsByTarget[.post(post.id)] ?? []).count { id in
            guard let comment = db.comments[id],
                canSee(contentBy: comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer, in: db)
            else { return false }
            // A reply shows only in its parent's thread.
            guard let parent = comment.parentID.flatMap({ db.comments[$0] }) else { return true }
            return canSee(contentBy: parent.authorID, isAnonymous: parent.isAnonymous, viewer: viewer, in: db)
        }
        let hidesAuthor = post.isAnonymous && post.authorID != viewer
        return Post(
            id: post.id, author: author(post.authorID, isAnonymous: post.isAnonymous, viewer: viewer, in: db),
            isMine: post.authorID == viewer, isAnonymous: post.isAnonymous, title: post.title, body: post.body,
            tags: post.tags, images: post.images, source: hidesAuthor ? .original : post.source, day: post.day,
            likeCount: likeCount,
            commentCount: commentCount, isLiked: likers.contains(viewer), createdAt: post.createdAt,
            updatedAt: post.updatedAt)
    }

    /// A comment as `viewer` sees it.
    package static func view(of comment: CommentRecord, viewer: User.ID, in db: DiaryDatabase) -> Comment {
        Comment(
            id: comment.id, target: comment.target, parentID: comment.parentID,
            author: author(comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer, in: db),
            isMine: comment.authorID == viewer, isAnonymous: comment.isAnonymous, body: comment.body, mood: comment.mood,
            createdAt: comment.createdAt, updatedAt: comment.updatedAt)
    }

    /// A book as `viewer` (a member) sees it.
    package static func view(of book: DiaryBook, viewer: User.ID) -> DiaryBook {
        book
    }
}
