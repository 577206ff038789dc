@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import Foundation

/// Comments on the server. Writing, editing and deleting a comment work offline: they are queued in the outbox and
/// sent in order with the user's other writes (a comment on an entry written offline arrives after the entry).
/// Reading comments offline gives the server's last answer to the same read, with the queued comments applied.
struct OfflineComments: CommentRepository {
    let context: OfflineContext
    let online: OnlineCommentRepository

    private var now: Date { context.backend.configuration.environment.clock.now() }

    func addComment(_ draft: CommentDraft) async throws -> Comment {
        let seen = await context.seen()
        var draft = draft
        // Chosen here, so the comment keeps its id whether it is sent now or later.
        if draft.id == nil { draft.id = Comment.ID(context.backend.configuration.environment.ids.next()) }
        let sent = draft
        let comment = try await context.sendOrQueue(.addComment, try CommunityPayload(draft: sent).encoded()) {
            try await context.remote.comments.addComment(sent)
        } local: { userID in
            let body = try Validation.text(sent.body, field: "body", maximum: Validation.maximumCommentLength)
            let mood = try Validation.mood(sent.mood)
            if let parentID = sent.parentID, let parent = seen.comment(parentID) {
                guard parent.target == sent.target else {
                    throw DiaryError.invalid("parentID", .invalidReference, "the reply is on a different target")
                }
                guard parent.parentID == nil else {
                    throw DiaryError.invalid("parentID", .notAllowed, "replies go one level deep: reply to the comment")
                }
            }
            let now = self.now
            return Comment(
                id: sent.id ?? Comment.ID(UUID()), target: sent.target, parentID: sent.parentID,
                author: try await context.author(userID), isMine: true, isAnonymous: sent.isAnonymous, body: body,
                mood: mood, createdAt: now, updatedAt: now)
        }
        seen.keep(comment)
        return comment
    }

    func editComment(_ id: Comment.ID, body: String, mood: Mood?) async throws -> Comment {
        let seen = await context.seen()
        let payload = try CommunityPayload(commentID: id, body: body, mood: mood, comment: seen.comment(id)).encoded()
        let comment = try await context.sendOrQueue(.editComment, payload) {
            try await context.remote.comments.editComment(id, body: body, mood: mood)
        } local: { _ in
            let body = try Validation.text(body, field: "body", maximum: Validation.maximumCommentLength)
            let mood = try Validation.mood(mood)
            guard var comment = seen.comment(id) else {
                throw Self.unknown("comments.editComment", "comment \(id)")
            }
            guard comment.isMine else { throw DiaryError(.forbidden, "only its author may edit comment \(id)") }
            comment.body = body
            comment.mood = mood
            comment.updatedAt = now
            return comment
        }
        seen.keep(comment)
        return comment
    }

    func deleteComment(_ id: Comment.ID) async throws {
        let seen = await context.seen()
        try await context.sendOrQueue(.deleteComment, try CommunityPayload(commentID: id).encoded()) {
            try await context.remote.comments.deleteComment(id)
        } local: { userID in
            // As the engine decides: the comment's author, or the author of what it is on.
            guard let comment = seen.comment(id), !comment.isMine else { return }
            let ownsTarget: Bool
            switch comment.target {
            case .post(let postID):
                let held = try await context.backend.replica.storage.read("offline.owns") { try await $0.post(postID)?.authorID }
                ownsTarget = held == userID || seen.post(postID)?.isMine == true
            case .diary(let diaryID):
                let held = try await context.backend.replica.storage.read("offline.owns") { try await $0.diary(diaryID)?.authorID }
                ownsTarget = held == userID || seen.diary(diaryID)?.authorID == userID
            }
            guard ownsTarget else { throw DiaryError(.forbidden, "only the author may delete comment \(id)") }
        }
        seen.forget(id)
    }

    /// The server's comments; while it cannot be reached, its last answer to the same read with the user's queued
    /// comments laid over it (new ones on the last page, edits, deletions).
    func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        let seen = await context.seen()
        let threads = try await context.online(
            "comments.comments", cached: [target, page],
            onCacheHit: { cached in try await withQueuedComments(cached, on: target) }
        ) {
            try await context.remote.comments.comments(on: target, page: page)
        }
        for thread in threads.items { seen.keep(thread) }
        return threads
    }

    /// `page` with the user's queued comments on `target` applied, in the order they were made.
    private func withQueuedComments(_ page: Page<CommentThread>, on target: CommentTarget) async throws -> Page<CommentThread> {
        let userID = try await context.userID()
        let queued = try await context.backend.replica.storage.read("offline.queuedComments") { reader in
            try await reader.rows(StorageSchema.outboxByUser, equalTo: userID)
        }.sorted { $0.sequence < $1.sequence }
        var page = page
        let author = try await context.author(userID)
        for entry in queued {
            guard let operation = OutboxOperation(rawValue: entry.operation),
                [OutboxOperation.addComment, .editComment, .deleteComment].contains(operation),
                let payload = try? CommunityPayload.decode(entry)
            else { continue }
            switch operation {
            case .addComment:
                guard let draft = payload.draft, let id = draft.id, draft.target == target, page.isLastPage else { continue }
                let comment = Comment(
                    id: id, target: draft.target, parentID: draft.parentID, author: author, isMine: true,
                    isAnonymous: draft.isAnonymous, body: (try? Validation.text(draft.body, field: "body", maximum: Validation.maximumCommentLength)) ?? draft.body,
                    mood: draft.mood, createdAt: entry.createdAt, updatedAt: entry.createdAt)
                if let parentID = draft.parentID {
                    if let index = page.items.firstIndex(where: { $0.id == parentID }) {
                        page.items[index].replies.append(comment)
                    }
                } else {
                    page.items.append(CommentThread(comment: comment, replies: []))
                }
            case .editComment:
                guard let id = payload.commentID, let raw = payload.body else { continue }
                let body = (try? Validation.text(raw, field: "body", maximum: Validation.maximumCommentLength)) ?? raw
                page.items = page.items.map { thread in
                    var thread = thread
                    for index in thread.replies.indices where thread.replies[index].id == id {
                        thread.replies[index].body = body
                        thread.replies[index].mood = payload.mood
                    }
                    if thread.comment.id == id {
                        thread.comment.body = body
                        thread.comment.mood = payload.mood
                    }
                    return thread
                }
            case .deleteComment:
                guard let id = payload.commentID else { continue }
                page.items.removeAll { $0.id == id }
                for index in page.items.indices { page.items[index].replies.removeAll { $0.id == id } }
            case .writeDiary, .editDiary, .deleteDiary, .setHidden, .setFavourite, .like, .unlike:
                continue
            }
        }
        return page
    }

    /// The refusal of a write offline whose value the device does not have.
    static func unknown(_ operation: String, _ what: String) -> DiaryError {
        DiaryError(
            .unavailable,
            "\(operation) offline needs \(what) as read from the server since the app started, and the server could not be reached")
    }
}
