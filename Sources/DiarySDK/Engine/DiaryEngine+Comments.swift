import Foundation

extension DiaryEngine: CommentRepository {
    @_spi(Engine)
    public func addComment(_ draft: CommentDraft) async throws -> Comment {
        let body = try Validation.text(draft.body, field: "body", maximum: Validation.maximumCommentLength)
        let mood = try Validation.mood(draft.mood)
        let now = self.now
        return try await write("comments.addComment", joining: draft) { transaction, actor in
            guard try await AccessPolicy.canSee(target: draft.target, viewer: actor, in: transaction) else {
                throw DiaryError.notFound("the commented \(Self.describe(draft.target))")
            }
            var parentAuthor: User.ID?
            if let parentID = draft.parentID {
                guard let parent = try await transaction.comment(parentID),
                    try await AccessPolicy.canSee(parent, viewer: actor, in: transaction)
                else {
                    throw DiaryError.notFound("comment \(parentID)")
                }
                guard parent.target == draft.target else {
                    throw DiaryError.invalid("parentID", .invalidReference, "the reply is on a different target")
                }
                guard parent.parentID == nil else {
                    throw DiaryError.invalid("parentID", .notAllowed, "replies go one level deep: reply to the comment")
                }
                parentAuthor = parent.authorID
            }
            let id = try await self.claimID(draft.id, in: transaction)
            let record = CommentRecord(
                id: id, target: draft.target, parentID: draft.parentID, authorID: actor.id,
                isAnonymous: draft.isAnonymous, body: body, mood: mood, createdAt: now, updatedAt: now)
            try await transaction.put(.comment(record))
            switch draft.target {
            case .diary(let diaryID):
                if let author = try await transaction.diary(diaryID)?.authorID {
                    try await self.notify(
                        author, .commentOnEntry, actor: actor.id, anonymous: draft.isAnonymous, diaryID: diaryID,
                        commentID: id, in: transaction)
                }
            case .post(let postID):
                if let author = try await transaction.post(postID)?.authorID {
                    try await self.notify(
                        author, .commentOnPost, actor: actor.id, anonymous: draft.isAnonymous, postID: postID,
                        commentID: id, in: transaction)
                }
            }
            if let parentAuthor {
                try await self.notify(
                    parentAuthor, .replyToComment, actor: actor.id, anonymous: draft.isAnonymous, commentID: id,
                    in: transaction)
            }
            return try await AccessPolicy.view(of: record, viewer: actor, in: transaction)
        }
    }

    @_spi(Engine)
    public func editComment(_ id: Comment.ID, body: String, mood: Mood?) async throws -> Comment {
        let body = try Validation.text(body, field: "body", maximum: Validation.maximumCommentLength)
        let mood = try Validation.mood(mood)
        let now = self.now
        return try await write("comments.editComment", joining: id, body, mood) { transaction, actor in
            var comment = try await Self.visibleComment(id, viewer: actor, in: transaction)
            guard comment.authorID == actor.id else {
                throw DiaryError.forbidden("only the author may edit comment \(id)")
            }
            comment.body = body
            comment.mood = mood
            comment.updatedAt = now
            try await transaction.put(.comment(comment))
            return try await AccessPolicy.view(of: comment, viewer: actor, in: transaction)
        }
    }

    @_spi(Engine)
    public func deleteComment(_ id: Comment.ID) async throws {
        try await write("comments.deleteComment", joining: id) { transaction, actor in
            let comment = try await Self.visibleComment(id, viewer: actor, in: transaction)
            let targetAuthor: User.ID?
            switch comment.target {
            case .diary(let diaryID): targetAuthor = try await transaction.diary(diaryID)?.authorID
            case .post(let postID): targetAuthor = try await transaction.post(postID)?.authorID
            }
            guard comment.authorID == actor.id || targetAuthor == actor.id else {
                throw DiaryError.forbidden("only the author may delete comment \(id)")
            }
            try await self.deleteComment(id, in: transaction)
        }
    }

    @_spi(Engine)
    public func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        try await read("comments.comments") { db, viewer in
            guard try await AccessPolicy.canSee(target: target, viewer: viewer, in: db) else {
                throw DiaryError.notFound("the commented \(Self.describe(target))")
            }
            var topLevel: [CommentRecord] = []
            for comment in try await db.rows(StorageSchema.commentsByTarget, equalTo: target)
            where comment.parentID == nil {
                if try await Self.canSee(comment, on: target, viewer: viewer, in: db) { topLevel.append(comment) }
            }
            // Paged over the top-level comments, so only the threads on the page read their replies.
            let threads = try Paginator.page(
                ordered: topLevel, key: { SortKey($0.createdAt, $0.id.rawValue) }, descending: false, request: page)
            // The page's replies and every author on the page are read once for the page.
            return try await Self.mapPage(threads) { comments in
                var replies: [CommentRecord] = []
                for reply in try await db.rows(StorageSchema.commentsByParent, equalToAnyOf: comments.map(\.id)) {
                    if try await Self.canSee(reply, on: target, viewer: viewer, in: db) { replies.append(reply) }
                }
                replies.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
                let shown = comments + replies
                let views = try await AccessPolicy.views(of: shown, viewer: viewer, in: db)
                var repliesByParent: [Comment.ID: [Comment]] = [:]
                for (reply, view) in zip(replies, views[comments.count...]) {
                    if let parentID = reply.parentID { repliesByParent[parentID, default: []].append(view) }
                }
                return zip(comments, views).map { comment, view in
                    CommentThread(comment: view, replies: repliesByParent[comment.id] ?? [])
                }
            }
        }
    }

    // MARK: - Helpers

    static func visibleComment(
        _ id: Comment.ID, viewer: Viewer, in db: any StorageReader
    ) async throws -> CommentRecord {
        guard let comment = try await db.comment(id), try await AccessPolicy.canSee(comment, viewer: viewer, in: db)
        else {
            throw DiaryError.notFound("comment \(id)")
        }
        return comment
    }

    /// ``AccessPolicy/canSee(_:viewer:in:)`` for a comment listed under `target`, which the caller found visible:
    /// only a comment on another target reads that target again.
    private static func canSee(
        _ comment: CommentRecord, on target: CommentTarget, viewer: Viewer, in db: any StorageReader
    ) async throws -> Bool {
        guard comment.target == target else { return try await AccessPolicy.canSee(comment, viewer: viewer, in: db) }
        return AccessPolicy.canSee(contentBy: comment.authorID, isAnonymous: comment.isAnonymous, viewer: viewer)
    }

    static func describe(_ target: CommentTarget) -> String {
        switch target {
        case .diary(let id): "entry \(id)"
        case .post(let id): "post \(id)"
        }
    }
}
