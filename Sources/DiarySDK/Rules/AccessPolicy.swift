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
        if let prefetched = viewer.prefetched[.user(id)] { return prefetched != nil }
        return try await db.contains(.user(id))
    }

    /// Whether `viewer` is a member of a book.
    package static func isMember(_ viewer: User.ID, of bookID: DiaryBook.ID, in db: any StorageReader) async throws -> Bool {
        try await db.contains(.membership(bookID, viewer))
    }

    /// Whether `viewer` may see an entry: private to its author; book entries to members; shared entries to anyone
    /// without a block; hidden entries to the author only; deleted-entry traces to members who chose to see them.
    package static func canSee(_ diary: Diary, viewer: Viewer, in db: any StorageReader) async throws -> Bool {
        if let decided = canSeeWithoutReading(diary, viewer: viewer) { return decided }
        // Left: a book's deleted-entry trace, or an entry shared with a book's members.
        guard let bookID = diary.bookID, try await isMember(viewer.id, of: bookID, in: db) else { return false }
        guard diary.deletedAt != nil else { return true }
        return try await db.user(viewer.id)?.settings?.showsDeletedEntryTraces ?? true
    }

    /// The part of ``canSee(_:viewer:in:)`` decided by the entry and the viewer alone, without reading anything:
    /// `nil` when the answer depends on the viewer's membership of the entry's book (a book entry for members, a
    /// book's deleted-entry trace). For loops over many entries (a month's calendar), which then read only for
    /// those.
    package static func canSeeWithoutReading(_ diary: Diary, viewer: Viewer) -> Bool? {
        canSeeWithoutReading(DiaryCalendarFields(diary), viewer: viewer)
    }

    /// ``canSeeWithoutReading(_:viewer:)`` on the fields of an entry a calendar reads, which hold all it decides on.
    package static func canSeeWithoutReading(_ diary: DiaryCalendarFields, viewer: Viewer) -> Bool? {
        if diary.deletedAt != nil { return diary.bookID == nil ? false : nil }
        if diary.authorID == viewer.id { return true }
        if diary.isHidden { return false }
        if viewer.blockedEitherWay.contains(diary.authorID) { return false }
        switch diary.visibility {
        case .private: return false
        case .members: return diary.bookID == nil ? false : nil
        case .shared: return true
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

    /// A user's public summary.
    package static func summary(of id: User.ID, in db: any StorageReader) async throws -> AuthorSummary? {
        try await db.user(id).map(summary(of:))
    }

    /// A user's public summary.
    package static func summary(of user: User) -> AuthorSummary {
        AuthorSummary(id: user.id, nickname: user.nickname, avatar: user.avatar)
    }

    /// A user as `viewer` sees them: everything for themself, the public profile for others.
    package static func view(of user: User, viewer: User.ID) -> User {
        user.id == viewer ? user : user.publicProfile
    }

    /// A post as `viewer` sees it: counts leaving out what the viewer may not see; for someone else's anonymous
    /// post, no author and no source (the entry or blog it came from would name its author).
    package static func view(of post: PostRecord, viewer: Viewer, in db: any StorageReader) async throws -> Post {
        guard let view = try await views(of: [post], viewer: viewer, in: db).first else {
            throw DiaryError(.server, "post \(post.id) has no view")
        }
        return view
    }

    /// A post `viewer` has just written, in the transaction that wrote it: nobody has liked it or commented on it
    /// yet (no other transaction can see it before this one commits), and its author is the viewer, so it needs
    /// no read when the request read the viewer's row.
    package static func view(ofNew post: PostRecord, viewer: Viewer, in db: any StorageReader) async throws -> Post {
        guard post.authorID == viewer.id, let account = viewer.account else {
            return try await view(of: post, viewer: viewer, in: db)
        }
        return Post(
            id: post.id, author: summary(of: account), isMine: true, isAnonymous: post.isAnonymous, title: post.title,
            body: post.body, tags: post.tags, images: post.images, source: post.source, day: post.day, likeCount: 0,
            commentCount: 0, isLiked: false, createdAt: post.createdAt, updatedAt: post.updatedAt)
    }

    /// Posts as `viewer` sees them (``view(of:viewer:in:)``), in the same order, with what they show beside
    /// themselves read for all of them at once: their like counts, their comment counts, whether the viewer liked
    /// each, and their authors, in three batched reads however many posts there are.
    package static func views(of posts: [PostRecord], viewer: Viewer, in db: any StorageReader) async throws -> [Post] {
        guard !posts.isEmpty else { return [] }
        let ids = posts.map(\.id)
        let shownAuthors = Set(posts.lazy.filter { !$0.isAnonymous || $0.authorID == viewer.id }.map(\.authorID))
        // One batched read: like counts, comment counts (or the comments, when some are hidden from the viewer),
        // the viewer's likes and the authors shown.
        var batch = StorageReadBatch()
        let likes = batch.counts(StorageSchema.likesByPost, equalToAnyOf: ids, where: viewer.filter)
        let comments = CommentCounts(of: ids, viewer: viewer, in: &batch)
        let records = batch.records(ids.map { .like(viewer.id, $0) } + shownAuthors.map { .user($0) })
        let answers = try await db.read(batch)
        let likeCounts = try answers[likes]
        let commentCounts = try await comments.counts(from: answers, in: db)
        let found = try answers[records]
        return posts.map { post in
            let hidesAuthor = post.isAnonymous && post.authorID != viewer.id
            var author: AuthorSummary?
            if !hidesAuthor, case .user(let user)? = found[.user(post.authorID)] { author = summary(of: user) }
            return Post(
                id: post.id, author: author, isMine: post.authorID == viewer.id, isAnonymous: post.isAnonymous,
                title: post.title, body: post.body, tags: post.tags, images: post.images,
                source: hidesAuthor ? .original : post.source, day: post.day, likeCount: likeCounts[post.id] ?? 0,
                commentCount: commentCounts[post.id] ?? 0, isLiked: found[.like(viewer.id, post.id)] != nil,
                createdAt: post.createdAt, updatedAt: post.updatedAt)
        }
    }

    /// How many comments on each post `viewer` sees: the same test as listing the comments, so a count never says
    /// more than the list shows. A comment counts when the viewer may see content by its author, and a reply only
    /// when they may also see its parent's (it shows only in its parent's thread).
    ///
    /// When the viewer's filter hides no one, every comment passes both tests, so the store counts them; otherwise
    /// the posts' comments are read and tested here. Either read joins a batch.
    private struct CommentCounts {
        private enum Read {
            case counted(StorageReadBatch.Handle<[CommentTarget: Int]>)
            case loaded(StorageReadBatch.Handle<[CommentRecord]>)
        }

        private let viewer: Viewer
        private let read: Read

        init(of ids: [Post.ID], viewer: Viewer, in batch: inout StorageReadBatch) {
            self.viewer = viewer
            let targets = ids.map(CommentTarget.post)
            read = viewer.filter.admitsEverything
                ? .counted(batch.counts(StorageSchema.commentsByTarget, equalToAnyOf: targets, where: .none))
                : .loaded(batch.rows(StorageSchema.commentsByTarget, equalToAnyOf: targets))
        }

        func counts(from answers: StorageReadBatch.Answers, in db: any StorageReader) async throws -> [Post.ID: Int] {
            var counts: [Post.ID: Int] = [:]
            let comments: [CommentRecord]
            switch read {
            case .counted(let counted):
                for (target, count) in try answers[counted] {
                    if case .post(let id) = target { counts[id] = count }
                }
                return counts
            case .loaded(let loaded):
                comments = try answers[loaded]
            }
            let byID = Dictionary(comments.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let missingParents = Set(comments.compactMap(\.parentID)).subtracting(byID.keys)
            var parents = byID
            for case .comment(let parent) in try await db.records(missingParents.map { .comment($0) }).values {
                parents[parent.id] = parent
            }
            for comment in comments where canSee(contentBy: comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer) {
                guard case .post(let postID) = comment.target else { continue }
                // A reply counts unless its parent is there and hidden (deleting a comment deletes its replies).
                if let parentID = comment.parentID, let parent = parents[parentID],
                    !canSee(contentBy: parent.authorID, isAnonymous: parent.isAnonymous, viewer: viewer)
                {
                    continue
                }
                counts[postID, default: 0] += 1
            }
            return counts
        }
    }

    /// A comment as `viewer` sees it.
    package static func view(of comment: CommentRecord, viewer: Viewer, in db: any StorageReader) async throws -> Comment {
        guard let view = try await views(of: [comment], viewer: viewer, in: db).first else {
            throw DiaryError(.server, "comment \(comment.id) has no view")
        }
        return view
    }

    /// Comments as `viewer` sees them, in the same order, with their authors read in one batched read.
    package static func views(of comments: [CommentRecord], viewer: Viewer, in db: any StorageReader) async throws -> [Comment] {
        guard !comments.isEmpty else { return [] }
        let shownAuthors = Set(comments.lazy.filter { !$0.isAnonymous || $0.authorID == viewer.id }.map(\.authorID))
        let authors = try await summaries(of: shownAuthors, in: db)
        return comments.map { comment in
            let hidesAuthor = comment.isAnonymous && comment.authorID != viewer.id
            return Comment(
                id: comment.id, target: comment.target, parentID: comment.parentID,
                author: hidesAuthor ? nil : authors[comment.authorID], isMine: comment.authorID == viewer.id,
                isAnonymous: comment.isAnonymous, body: comment.body, mood: comment.mood, createdAt: comment.createdAt,
                updatedAt: comment.updatedAt)
        }
    }

    /// Users' public summaries, read in one batched read; a user who is gone is absent.
    package static func summaries(of ids: Set<User.ID>, in db: any StorageReader) async throws -> [User.ID: AuthorSummary] {
        var summaries: [User.ID: AuthorSummary] = [:]
        for case .user(let user) in try await db.records(ids.map { .user($0) }).values {
            summaries[user.id] = summary(of: user)
        }
        return summaries
    }

    /// A book as `viewer` (a member) sees it.
    package static func view(of book: DiaryBook, viewer: User.ID) -> DiaryBook {
        book
    }
}
