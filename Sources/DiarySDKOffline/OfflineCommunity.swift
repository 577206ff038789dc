@_spi(Storage) @_spi(Engine) import DiarySDK
import Foundation

/// The posts and comments the app last read from the server, so that a like or a comment edit made offline can
/// answer with the value it changes. Kept in memory, at most ``limit`` of each (the oldest read goes first).
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

    func keep(_ post: Post) { posts.withLock { $0.keep(post, id: post.id.rawValue) } }
    func keep(_ comment: Comment) { comments.withLock { $0.keep(comment, id: comment.id.rawValue) } }
    func keep(_ thread: CommentThread) {
        keep(thread.comment)
        for reply in thread.replies { keep(reply) }
    }
    func post(_ id: Post.ID) -> Post? { posts.withLock { $0.values[id.rawValue] } }
    func comment(_ id: Comment.ID) -> Comment? { comments.withLock { $0.values[id.rawValue] } }
    func forget(_ id: Comment.ID) { comments.withLock { $0.forget(id.rawValue) } }
}

/// Comments on the server. Writing, editing and deleting a comment work offline: they are queued in the outbox and
/// sent in order with the user's other writes (a comment on an entry written offline arrives after the entry).
/// Reading comments needs the server.
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
        let comment = try await context.sendOrQueue(.addComment, CommunityPayload(draft: sent)) {
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
        let payload = CommunityPayload(commentID: id, body: body, mood: mood)
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
        try await context.sendOrQueue(.deleteComment, CommunityPayload(commentID: id)) {
            try await context.remote.comments.deleteComment(id)
        } local: { _ in
            if let comment = seen.comment(id), !comment.isMine {
                throw DiaryError(.forbidden, "only its author may delete comment \(id)")
            }
        }
        seen.forget(id)
    }

    func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread> {
        await context.sendPendingBeforeRead()
        let threads = try await online.comments(on: target, page: page)
        for thread in threads.items { seen.keep(thread) }
        return threads
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
        let post = try await context.sendOrQueue(operation, CommunityPayload(postID: id)) {
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
