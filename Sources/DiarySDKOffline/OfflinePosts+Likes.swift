@_spi(Storage) @_spi(Engine) import DiarySDK
import Foundation

extension OfflinePosts {
    /// Likes or unlikes: sent now when the server can be reached, else queued and answered with the post as last
    /// read (or, for one of the user's own posts, as the replica holds it), its like count adjusted.
    func setLiked(_ id: Post.ID, _ liked: Bool) async throws -> Post {
        let operation: OutboxOperation = liked ? .like : .unlike
        let seen = await context.seen()
        let post = try await context.sendOrQueue(operation, try CommunityPayload(postID: id).encoded()) {
            liked ? try await context.remote.posts.like(id) : try await context.remote.posts.unlike(id)
        } local: { _ in
            // The post as last read (the replica's own posts hold no likes or comments to count from).
            guard var post = seen.post(id) else {
                throw OfflineComments.unknown("posts.\(operation == .like ? "like" : "unlike")", "post \(id)")
            }
            if post.isLiked != liked {
                post.isLiked = liked
                post.likeCount = max(0, post.likeCount + (liked ? 1 : -1))
            }
            return post
        }
        seen.keep(post)
        return post
    }
}
