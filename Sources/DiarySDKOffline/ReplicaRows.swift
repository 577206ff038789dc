@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import Foundation

/// How server values become replica rows. The replica holds the signed-in user's profile, entries (outside books),
/// posts (for the calendar and the streak, which count them) and the attachment rows their images name (so a local
/// edit that keeps an image passes the engine's ownership check). Rows are the server's: they are written as they
/// are, without the engine's rules, which the server already applied.
enum ReplicaRows {
    /// The row of one of the user's own posts (the author sees every field of their own post).
    static func row(of post: Post, authorID: User.ID) -> PostRecord {
        PostRecord(
            id: post.id, authorID: authorID, isAnonymous: post.isAnonymous, title: post.title, body: post.body,
            tags: post.tags, images: post.images, source: post.source, day: post.day, createdAt: post.createdAt,
            updatedAt: post.updatedAt)
    }

    /// Makes sure an attachment row names each image as `owner`'s upload.
    static func keepAttachments(
        _ images: [ImageReference], owner: User.ID, at date: Date, in transaction: any StorageTransaction
    ) async throws {
        for image in images where try await transaction.attachment(image.id) == nil {
            try await transaction.put(
                .attachment(
                    Attachment(
                        id: image.id, ownerID: owner, contentType: image.contentType, byteCount: image.byteCount,
                        createdAt: date)))
        }
    }

    /// Puts or removes one of the user's posts.
    static func show(_ post: Post?, id: Post.ID, userID: User.ID, in transaction: any StorageTransaction) async throws {
        if let post {
            try await keepAttachments(post.images, owner: userID, at: post.createdAt, in: transaction)
            try await transaction.put(.post(row(of: post, authorID: userID)))
        } else if try await transaction.post(id) != nil {
            try await transaction.remove(.post(id))
        }
    }
}

/// Posts on the server; the user's own are mirrored into the replica as the server answers, so the calendar and
/// the streak (which count posts) answer offline. Likes work offline (see ``setLiked(_:_:)``).
struct OfflinePosts: PostRepository {
    let context: OfflineContext
    let online: OnlinePostRepository

    private func mirror(_ post: Post) async throws -> Post {
        await context.seen().keep(post)
        guard post.isMine else { return post }
        let userID = try await context.userID()
        try await context.backend.replica.storage.write("offline.post") { transaction in
            try await ReplicaRows.show(post, id: post.id, userID: userID, in: transaction)
        }
        return post
    }

    func publish(_ draft: PostDraft) async throws -> Post { try await mirror(try await online.publish(draft)) }

    func share(_ diaryID: Diary.ID, isAnonymous: Bool) async throws -> Post {
        try await mirror(try await online.share(diaryID, isAnonymous: isAnonymous))
    }

    func edit(_ id: Post.ID, _ edit: PostEdit) async throws -> Post { try await mirror(try await online.edit(id, edit)) }

    func delete(_ id: Post.ID) async throws {
        try await online.delete(id)
        let userID = try await context.userID()
        try await context.backend.replica.storage.write("offline.post") { transaction in
            try await ReplicaRows.show(nil, id: id, userID: userID, in: transaction)
        }
    }

    /// Reads the server (after sending the user's queued comments and likes) and keeps what it read for a like
    /// made offline. While the server cannot be reached, the last answer to the same read is given back, each post
    /// in it as this device last knew it (a like made offline shows).
    private func read<Result: Sendable & Codable>(
        _ operation: String, _ arguments: [any Encodable], posts: @escaping (Result) -> [Post],
        map: @escaping (Result, (Post) -> Post) -> Result, _ call: () async throws -> Result
    ) async throws -> Result {
        let seen = await context.seen()
        let result = try await context.online(
            operation, cached: arguments,
            onCacheHit: { cached in
                let likes = try await queuedLikes()
                return map(cached) { post in
                    if let known = seen.post(post.id) { return known }
                    guard let liked = likes[post.id], liked != post.isLiked else { return post }
                    var post = post
                    post.isLiked = liked
                    post.likeCount = max(0, post.likeCount + (liked ? 1 : -1))
                    return post
                }
            }, call)
        for post in posts(result) { seen.keep(post) }
        return result
    }

    /// Whether each post the outbox likes or unlikes ends liked, after the queued writes in order.
    private func queuedLikes() async throws -> [Post.ID: Bool] {
        let userID = try await context.userID()
        let queued = try await context.backend.replica.storage.read("offline.queuedLikes") { reader in
            try await reader.rows(StorageSchema.outboxByUser, equalTo: userID)
        }
        var likes: [Post.ID: Bool] = [:]
        for entry in queued.sorted(by: { $0.sequence < $1.sequence }) {
            switch OutboxOperation(rawValue: entry.operation) {
            case .like?: likes[Post.ID(entry.subject)] = true
            case .unlike?: likes[Post.ID(entry.subject)] = false
            default: continue
            }
        }
        return likes
    }

    private func read(
        _ operation: String, _ arguments: [any Encodable], _ call: () async throws -> Page<Post>
    ) async throws -> Page<Post> {
        try await read(operation, arguments, posts: \.items, map: { page, transform in
            var page = page
            page.items = page.items.map(transform)
            return page
        }, call)
    }

    func post(_ id: Post.ID) async throws -> Post {
        try await read("posts.post", [id], posts: { [$0] }, map: { $1($0) }) { try await context.remote.posts.post(id) }
    }
    func feed(page: PageRequest) async throws -> Page<Post> {
        try await read("posts.feed", [page]) { try await context.remote.posts.feed(page: page) }
    }
    func posts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await read("posts.posts", [userID, page]) { try await context.remote.posts.posts(by: userID, page: page) }
    }
    func posts(by userID: User.ID?, on day: LocalDate) async throws -> [Post] {
        try await read("posts.postsOnDay", [userID, day], posts: { $0 }, map: { $0.map($1) }) {
            try await context.remote.posts.posts(by: userID, on: day)
        }
    }
    /// Search is the server's alone: it fails at once while offline.
    func search(_ search: PostSearch, page: PageRequest) async throws -> Page<Post> {
        await context.sendPendingBeforeRead()
        let found = try await online.search(search, page: page)
        let seen = await context.seen()
        for post in found.items { seen.keep(post) }
        return found
    }
    func like(_ id: Post.ID) async throws -> Post { try await setLiked(id, true) }
    func unlike(_ id: Post.ID) async throws -> Post { try await setLiked(id, false) }
    func likedPosts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await read("posts.likedPosts", [userID, page]) {
            try await context.remote.posts.likedPosts(by: userID, page: page)
        }
    }
    func likers(of id: Post.ID, page: PageRequest) async throws -> Page<User> {
        try await online.likers(of: id, page: page)
    }
}

/// Uploads go to the server; the attachment's row is kept in the replica, so an entry written offline may show it.
struct OfflineAttachments: AttachmentRepository {
    let context: OfflineContext
    let online: OnlineAttachmentRepository

    func upload(_ upload: AttachmentUpload) async throws -> ImageReference {
        let image = try await online.upload(upload)
        let userID = try await context.userID()
        let now = context.backend.configuration.environment.clock.now()
        try await context.backend.replica.storage.write("offline.attachment") { transaction in
            try await ReplicaRows.keepAttachments([image], owner: userID, at: now, in: transaction)
        }
        return image
    }

    func data(for id: Attachment.ID) async throws -> Data { try await online.data(for: id) }
}

/// Blogs on the server. An import makes posts on the server, so the replica's copy of the user's posts is refreshed
/// after one.
struct OfflineBlogs: BlogRepository {
    let context: OfflineContext
    let online: OnlineBlogRepository

    func register(_ draft: BlogDraft) async throws -> Blog { try await online.register(draft) }
    func updateBlog(_ id: Blog.ID, _ edit: BlogEdit) async throws -> Blog { try await online.updateBlog(id, edit) }
    func deleteBlog(_ id: Blog.ID) async throws { try await online.deleteBlog(id) }
    func setPrimary(_ id: Blog.ID) async throws -> Blog { try await online.setPrimary(id) }
    func blogs(of userID: User.ID?) async throws -> [Blog] { try await online.blogs(of: userID) }
    func blog(_ id: Blog.ID) async throws -> Blog { try await online.blog(id) }
    func recordSync(_ id: Blog.ID, _ state: BlogSyncState) async throws -> Blog { try await online.recordSync(id, state) }

    func importItem(_ item: ImportedItem, into id: Blog.ID) async throws -> ImportOutcome {
        let outcome = try await online.importItem(item, into: id)
        try await context.backend.sync.refreshPosts()
        return outcome
    }

    func importItems(_ items: [ImportedItem], into id: Blog.ID) async throws -> [ImportItemResult] {
        let results = try await online.importItems(items, into: id)
        try await context.backend.sync.refreshPosts()
        return results
    }
}
