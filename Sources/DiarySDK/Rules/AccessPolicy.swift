import Foundation

/// Who may see what: the visibility, blocking and anonymity rules, written once over the database so every local
/// backend and the reference server apply exactly the same ones.
package enum AccessPolicy {
    /// Whether either user blocked the other.
    package static func blockedEitherWay(_ a: User.ID, _ b: User.ID, in db: DiaryDatabase) -> Bool {
        db.blocks[a]?[b] != nil || db.blocks[b]?[a] != nil
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

    /// Whether `viewer` may see a post: anyone without a block either way with its author.
    package static func canSee(_ post: PostRecord, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        post.authorID == viewer || !blockedEitherWay(post.authorID, viewer, in: db)
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

    /// Whether `viewer` may see a comment: its target is visible and there is no block with its author.
    package static func canSee(_ comment: CommentRecord, viewer: User.ID, in db: DiaryDatabase) -> Bool {
        canSee(target: comment.target, viewer: viewer, in: db)
            && (comment.authorID == viewer || !blockedEitherWay(comment.authorID, viewer, in: db))
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

    /// A post as `viewer` sees it: the author hidden when anonymous, counts leaving out blocked users.
    package static func view(of post: PostRecord, viewer: User.ID, in db: DiaryDatabase) -> Post {
        let likers = db.likersByPost[post.id] ?? []
        let likeCount = likers.count { $0 == viewer || !blockedEitherWay($0, viewer, in: db) }
        let commentCount = (db.commentsByTarget[.post(post.id)] ?? []).count { id in
            guard let comment = db.comments[id] else { return false }
            return comment.authorID == viewer || !blockedEitherWay(comment.authorID, viewer, in: db)
        }
        return Post(
            id: post.id, author: author(post.authorID, isAnonymous: post.isAnonymous, viewer: viewer, in: db),
            isMine: post.authorID == viewer, isAnonymous: post.isAnonymous, title: post.title, body: post.body,
            tags: post.tags, images: post.images, source: post.source, day: post.day, likeCount: likeCount,
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
