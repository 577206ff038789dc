@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import Foundation

/// The posts, comments and entries (others', and in books) the app last read from the server or changed on the
/// device, so that a like, a comment edit or a book entry's edit made offline can answer with the value it changes,
/// and a kept answer read offline shows them as they are now. Kept in memory, at most ``limit`` of each (the oldest read goes first).
final class SeenValues: Sendable {
    static let limit = 2_000

    private struct Recent<Value: Sendable>: Sendable {
        var values: [UUID: Value] = [:]
        var order: [UUID] = []

        mutating func keep(_ value: Value, id: UUID) {
            if values.updateValue(value, forKey: id) == nil { order.append(id) }
            if order.count > SeenValues.limit {
                let dropped = order.count - SeenValues.limit
                for old in order.prefix(dropped) { values[old] = nil }
                order.removeFirst(dropped)
            }
        }

        mutating func forget(_ id: UUID) {
            if values.removeValue(forKey: id) != nil { order.removeAll { $0 == id } }
        }
    }

    private let posts = Locked(Recent<Post>())
    private let comments = Locked(Recent<Comment>())
    private let diaries = Locked(Recent<Diary>())
    /// Entries deleted on the device whose deletion is not yet sent (a kept answer may still show them).
    private let deletedDiaries = Locked(Set<Diary.ID>())

    func keep(_ post: Post) { posts.withLock { $0.keep(post, id: post.id.rawValue) } }
    func keep(_ comment: Comment) { comments.withLock { $0.keep(comment, id: comment.id.rawValue) } }
    func keep(_ thread: CommentThread) {
        keep(thread.comment)
        for reply in thread.replies { keep(reply) }
    }
    func post(_ id: Post.ID) -> Post? { posts.withLock { $0.values[id.rawValue] } }
    func comment(_ id: Comment.ID) -> Comment? { comments.withLock { $0.values[id.rawValue] } }
    func forget(_ id: Comment.ID) { comments.withLock { $0.forget(id.rawValue) } }
    func keep(_ diary: Diary) {
        diaries.withLock { $0.keep(diary, id: diary.id.rawValue) }
        _ = deletedDiaries.withLock { $0.remove(diary.id) }
    }
    func diary(_ id: Diary.ID) -> Diary? { diaries.withLock { $0.values[id.rawValue] } }
    func deleted(_ id: Diary.ID) {
        diaries.withLock { $0.forget(id.rawValue) }
        _ = deletedDiaries.withLock { $0.insert(id) }
    }
    func isDeleted(_ id: Diary.ID) -> Bool { deletedDiaries.withLock { $0.contains(id) } }
}

/// Comments on the server. Writing, editing and deleting a comment work offline: they are queued in the outbox and
/// sent in order with the user's other writes (a comment on an entry written offline arrives after the entry).
/// Reading comments offline gives the server's last answer to the same read, with the queued comments applied.
struct OfflineComments: CommentRepository {
    let context: OfflineContext
    let online: OnlineCommentRepository

    private var seen: SeenValues { context.backend.seen }
    private var now: Date { context.backend.configuration.environment.clock.now() }

    func addComment(_ draft: CommentDraft) async throws -> Comment {
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
        let payload = try CommunityPayload(commentID: id, body: body, mood: mood).encoded()
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
        try await context.sendOrQueue(.deleteComment, try CommunityPayload(commentID: id).encoded()) {
            try await context.remote.comments.deleteComment(id)
        } local: { _ in
            if let comment = seen.comment(id), !comment.isMine {
                throw DiaryError(.forbidden, "only its author may delete comment \(id)")
            }
        }
        seen.forget(id)
    }

    /// The server's comments; while it cannot be reached, its last answer to the same read with the user's queued
    /// comments laid over it (new ones on the last page, edits, deletions).
    func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        await context.sendPendingBeforeRead()
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
                guard let id = payload.commentID, let body = payload.body else { continue }
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

extension OfflinePosts {
    /// Likes or unlikes: sent now when the server can be reached, else queued and answered with the post as last
    /// read (or, for one of the user's own posts, as the replica holds it), its like count adjusted.
    func setLiked(_ id: Post.ID, _ liked: Bool) async throws -> Post {
        let operation: OutboxOperation = liked ? .like : .unlike
        let post = try await context.sendOrQueue(operation, try CommunityPayload(postID: id).encoded()) {
            liked ? try await context.remote.posts.like(id) : try await context.remote.posts.unlike(id)
        } local: { userID in
            var post: Post
            if let seen = context.backend.seen.post(id) {
                post = seen
            } else if let own = try? await context.backend.engine(for: userID).post(id) {
                post = own
            } else {
                throw OfflineComments.unknown("posts.\(operation == .like ? "like" : "unlike")", "post \(id)")
            }
            if post.isLiked != liked {
                post.isLiked = liked
                post.likeCount = max(0, post.likeCount + (liked ? 1 : -1))
            }
            return post
        }
        context.backend.seen.keep(post)
        return post
    }
}
