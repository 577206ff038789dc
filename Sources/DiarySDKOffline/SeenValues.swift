import DiarySDK
import Foundation

/// The posts, comments and entries (others', and in books) the app last read from the server or changed on the
/// device, so that a like, a comment edit or a book entry's edit made offline can answer with the value it changes,
/// and a kept answer read offline shows them as they are now. One user's at a time (``owner``: the backend makes a new
/// set when another user signs in). Kept in memory, at most ``limit`` of each (the one first kept longest ago goes
/// first).
final class SeenValues: Sendable {
    static let limit = 2_000

    /// Whose they are.
    let owner: User.ID?

    init(owner: User.ID?) {
        self.owner = owner
    }

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
