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
    package static func blockedEitherWay(_ a: User.ID, _ b: User.ID, in db: any StorageReader) async throws -> Bool {
        if try await db.contains(.block(a, b)) { return true }
        return try await db.contains(.block(b, a))
    }

    /// Whether `viewer` may see anonymous content by `author`: always their own; anyone else's unless `viewer`
    /// blocked its author through an anonymous post or comment. User blocks do not count here.
    package static func canSeeAnonymous(by author: User.ID, viewer: Viewer) -> Bool {
        author == viewer.id || !viewer.anonymouslyBlocked.contains(author)
    }

    /// Whether `viewer` may see content by `author`, named (no user block either way) or anonymous (no anonymous
    /// block by the viewer).
    package static func canSee(contentBy author: User.ID, isAnonymous: Bool, viewer: Viewer) -> Bool {
        viewer.filter.admits(Authorship(author: author, isAnonymous: isAnonymous))
    }

    /// Whether `viewer` may see a user at all: the user exists and there is no block either way.
    package static func canSee(user id: User.ID, viewer: Viewer, in db: any StorageReader) async throws -> Bool {
        guard id == viewer.id || !viewer.blockedEitherWay.contains(id) else { return false }
        return try await db.contains(.user(id))
    }

    /// Whether `viewer` is a member of a book.
    package static func isMember(_ viewer: User.ID, of bookID: DiaryBook.ID, in db: any StorageReader) async throws -> Bool {
        try await db.contains(.membership(bookID, viewer))
    }

    /// Whether `viewer` may see an entry: private to its author; book entries to members; shared entries to anyone
    /// without a block; hidden entries to the author only; deleted-entry traces to members who chose to see them.
    package static func canSee(_ diary: Diary, viewer: Viewer, in db: any StorageReader) async throws -> Bool {
        if diary.deletedAt != nil {
            guard let bookID = diary.bookID, try await isMember(viewer.id, of: bookID, in: db) else { return false }
            return try await db.user(viewer.id)?.settings?.showsDeletedEntryTraces ?? true
        }
        if diary.authorID == viewer.id { return true }
        if diary.isHidden { return false }
        if viewer.blockedEitherWay.contains(diary.authorID) { return false }
        switch diary.visibility {
        case .private:
            return false
        case .members:
            guard let bookID = diary.bookID else { return false }
            return try await isMember(viewer.id, of: bookID, in: db)
        case .shared:
            return true
        }
    }

    /// Whether `viewer` may see a post: a named one without a block either way with its author, an anonymous one
    /// unless the viewer blocked its author anonymously.
    package static func canSee(_ post: PostRecord, viewer: Viewer) -> Bool {
        canSee(contentBy: post.authorID, isAnonymous: post.isAnonymous, viewer: viewer)
    }

    /// Whether `viewer` may see what a comment is attached to.
    package static func canSee(target: CommentTarget, viewer: Viewer, in db: any StorageReader) async throws -> Bool {
        switch target {
        case .diary(let id):
            guard let diary = try await db.diary(id), diary.deletedAt == nil else { return false }
            return try await canSee(diary, viewer: viewer, in: db)
        case .post(let id):
            guard let post = try await db.post(id) else { return false }
            return canSee(post, viewer: viewer)
        }
    }

    /// Whether `viewer` may see a comment: its target is visible and its author's content is (see
    /// ``canSee(contentBy:isAnonymous:viewer:)``).
    package static func canSee(_ comment: CommentRecord, viewer: Viewer, in db: any StorageReader) async throws -> Bool {
        guard canSee(contentBy: comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer) else { return false }
        return try await canSee(target: comment.target, viewer: viewer, in: db)
    }

    /// Whether `viewer` may see a notification: one with a named actor unless a block stands either way, one from an
    /// anonymous actor unless the viewer blocked them anonymously, one nobody caused always.
    package static func canSee(
        _ notification: NotificationRecord, viewer: Viewer, in db: any StorageReader
    ) async throws -> Bool {
        if let actor = notification.actorID { return !viewer.blockedEitherWay.contains(actor) }
        if let actor = notification.anonymousActorID { return canSeeAnonymous(by: actor, viewer: viewer) }
        // Stored before the anonymous actor was kept: the anonymous comment it is about names them.
        if let id = notification.commentID, let comment = try await db.comment(id), comment.isAnonymous {
            return canSeeAnonymous(by: comment.authorID, viewer: viewer)
        }
        return true
    }

    /// Whether `viewer` may read an attachment: their own; an avatar of a user they may see; an image of a post or
    /// entry they may see. An image follows its post, so one in an anonymous post is not hidden by a user block
    /// with its (hidden) owner, which would tell the viewer who wrote the post.
    package static func canSee(_ attachment: Attachment, viewer: Viewer, in db: any StorageReader) async throws -> Bool {
        let owner = attachment.ownerID
        if owner == viewer.id { return true }
        if !viewer.blockedEitherWay.contains(owner), try await db.user(owner)?.avatar?.id == attachment.id { return true }
        for post in try await db.rows(StorageSchema.postsByImage, equalTo: attachment.id)
        where post.authorID == owner && canSee(post, viewer: viewer) {
            return true
        }
        for diary in try await db.rows(StorageSchema.diariesByImage, equalTo: attachment.id) where diary.authorID == owner {
            if try await canSee(diary, viewer: viewer, in: db) { return true }
        }
        return false
    }

    /// The author as `viewer` may see them: `nil` for someone else's anonymous content.
    package static func author(
        _ authorID: User.ID, isAnonymous: Bool, viewer: Viewer, in db: any StorageReader
    ) async throws -> AuthorSummary? {
        if isAnonymous && authorID != viewer.id { return nil }
        return try await summary(of: authorID, in: db)
    }

    /// A user's public summary.
    package static func summary(of id: User.ID, in db: any StorageReader) async throws -> AuthorSummary? {
        guard let user = try await db.user(id) else { return nil }
        return AuthorSummary(id: user.id, nickname: user.nickname, avatar: user.avatar)
    }

    /// A user as `viewer` sees them: everything for themself, the public profile for others.
    package static func view(of user: User, viewer: User.ID) -> User {
        user.id == viewer ? user : user.publicProfile
    }

    /// A post as `viewer` sees it: counts leaving out what the viewer may not see; for someone else's anonymous
    /// post, no author and no source (the entry or blog it came from would name its author).
    package static func view(of post: PostRecord, viewer: Viewer, in db: any StorageReader) async throws -> Post {
        let likeCount = try await db.count(StorageSchema.likesByPost, equalTo: post.id, where: viewer.filter)
        let isLiked = try await db.contains(.like(viewer.id, post.id))
        // The same test as listing the comments, so a count never says more than the list shows.
        var commentCount = 0
        var parents: [Comment.ID: CommentRecord?] = [:]
        for comment in try await db.rows(StorageSchema.commentsByTarget, equalTo: .post(post.id))
        where canSee(contentBy: comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer) {
            // A reply shows only in its parent's thread.
            if let parentID = comment.parentID {
                if parents[parentID] == nil { parents[parentID] = .some(try await db.comment(parentID)) }
                if let parent = parents[parentID] ?? nil,
                    !canSee(contentBy: parent.authorID, isAnonymous: parent.isAnonymous, viewer: viewer)
                {
                    continue
                }
            }
            commentCount += 1
        }
        let hidesAuthor = post.isAnonymous && post.authorID != viewer.id
        return Post(
            id: post.id, author: try await author(post.authorID, isAnonymous: post.isAnonymous, viewer: viewer, in: db),
            isMine: post.authorID == viewer.id, isAnonymous: post.isAnonymous, title: post.title, body: post.body,
            tags: post.tags, images: post.images, source: hidesAuthor ? .original : post.source, day: post.day,
            likeCount: likeCount, commentCount: commentCount, isLiked: isLiked, createdAt: post.createdAt,
            updatedAt: post.updatedAt)
    }

    /// A comment as `viewer` sees it.
    package static func view(of comment: CommentRecord, viewer: Viewer, in db: any StorageReader) async throws -> Comment {
        Comment(
            id: comment.id, target: comment.target, parentID: comment.parentID,
            author: try await author(comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer, in: db),
            isMine: comment.authorID == viewer.id, isAnonymous: comment.isAnonymous, body: comment.body,
            mood: comment.mood, createdAt: comment.createdAt, updatedAt: comment.updatedAt)
    }

    /// A book as `viewer` (a member) sees it.
    package static func view(of book: DiaryBook, viewer: User.ID) -> DiaryBook {
        book
    }
}
