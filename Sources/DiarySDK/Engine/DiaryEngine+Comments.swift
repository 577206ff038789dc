import Foundation

extension DiaryEngine: CommentRepository {
    public func addComment(_ draft: CommentDraft) async throws -> Comment {
        let body = try Validation.text(draft.body, field: "body", maximum: Validation.maximumCommentLength)
        let mood = try Validation.mood(draft.mood)
        let now = self.now
        let id: Comment.ID = newID()
        return try await write("comments.addComment", joining: draft) { transaction, actor in
            let db = transaction.database
            guard AccessPolicy.canSee(target: draft.target, viewer: actor, in: db) else {
                throw DiaryError.notFound("the commented \(Self.describe(draft.target))")
            }
            var parentAuthor: User.ID?
            if let parentID = draft.parentID {
                guard let parent = db.comments[parentID], AccessPolicy.canSee(parent, viewer: actor, in: db) else {
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
            let record = CommentRecord(
                id: id, target: draft.target, parentID: draft.parentID, authorID: actor, isAnonymous: draft.isAnonymous,
                body: body, mood: mood, createdAt: now, updatedAt: now)
            transaction.put(.comment(record))
            switch draft.target {
            case .diary(let diaryID):
                if let author = db.diaries[diaryID]?.authorID {
                    self.notify(
                        author, .commentOnEntry, actor: actor, anonymous: draft.isAnonymous, diaryID: diaryID,
                        commentID: id, in: &transaction)
                }
            case .post(let postID):
                if let author = db.posts[postID]?.authorID {
                    self.notify(
                        author, .commentOnPost, actor: actor, anonymous: draft.isAnonymous, postID: postID, commentID: id,
                        in: &transaction)
                }
            }
            if let parentAuthor {
                self.notify(
                    parentAuthor, .replyToComment, actor: actor, anonymous: draft.isAnonymous, commentID: id,
                    in: &transaction)
            }
            return AccessPolicy.view(of: record, viewer: actor, in: transaction.database)
        }
    }

    public func editComment(_ id: Comment.ID, body: String, mood: Mood?) async throws -> Comment {
        let body = try Validation.text(body, field: "body", maximum: Validation.maximumCommentLength)
        let mood = try Validation.mood(mood)
        let now = self.now
        return try await write("comments.editComment", joining: id, body, mood) { transaction, actor in
            var comment = try Self.visibleComment(id, viewer: actor, in: transaction.database)
            guard comment.authorID == actor else { throw DiaryError.forbidden("only the author may edit comment \(id)") }
            comment.body = body
            comment.mood = mood
            comment.updatedAt = now
            transaction.put(.comment(comment))
            return AccessPolicy.view(of: comment, viewer: actor, in: transaction.database)
        }
    }

    public func deleteComment(_ id: Comment.ID) async throws {
        try await write("comments.deleteComment", joining: id) { transaction, actor in
            let db = transaction.database
            let comment = try Self.visibleComment(id, viewer: actor, in: db)
            let targetAuthor: User.ID? =
                switch comment.target {
                case .diary(let diaryID): db.diaries[diaryID]?.authorID
                case .post(let postID): db.posts[postID]?.authorID
                }
            guard comment.authorID == actor || targetAuthor == actor else {
                throw DiaryError.forbidden("only the author may delete comment \(id)")
            }
            self.deleteComment(id, in: &transaction)
        }
    }

    public func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        try await read("comments.comments") { db, viewer in
            guard AccessPolicy.canSee(target: target, viewer: viewer, in: db) else {
                throw DiaryError.notFound("the commented \(Self.describe(target))")
            }
            let topLevel = (db.commentsByTarget[target] ?? []).compactMap { db.comments[$0] }
                .filter { $0.parentID == nil && AccessPolicy.canSee($0, viewer: viewer, in: db) }
            let threads = topLevel.map { comment in
                let replies = (db.repliesByParent[comment.id] ?? []).compactMap { db.comments[$0] }
                    .filter { AccessPolicy.canSee($0, viewer: viewer, in: db) }
                    .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
                    .map { AccessPolicy.view(of: $0, viewer: viewer, in: db) }
                return CommentThread(comment: AccessPolicy.view(of: comment, viewer: viewer, in: db), replies: replies)
            }
            return try Paginator.page(
                ordered: threads, key: { SortKey($0.comment.createdAt, $0.comment.id.rawValue) }, descending: false,
                request: page)
        }
    }

    // MARK: - Helpers

    static func visibleComment(_ id: Comment.ID, viewer: User.ID, in db: DiaryDatabase) throws -> CommentRecord {
        guard let comment = db.comments[id], AccessPolicy.canSee(comment, viewer: viewer, in: db) else {
            throw DiaryError.notFound("comment \(id)")
        }
        return comment
    }

    static func describe(_ target: CommentTarget) -> String {
        switch target {
        case .diary(let id): "entry \(id)"
        case .post(let id): "post \(id)"
        }
    }
}
