import Foundation

/// Community posts: publish, share an entry, the feed, search, likes.
///
/// Anonymous posts never reveal their author to anyone else, not even through where they came from; a blocked
/// user's named posts and likes disappear for the blocker everywhere (see ``SocialRepository/block(_:)``).
public protocol PostRepository: Sendable {
    /// Publishes a post.
    /// - Throws: `.invalidInput` (blank title or body, more than four images, another user's image).
    func publish(_ draft: PostDraft) async throws -> Post
    /// Shares one of the signed-in user's diary entries to the community.
    func share(_ diaryID: Diary.ID, isAnonymous: Bool) async throws -> Post
    /// Edits one of the signed-in user's posts.
    func edit(_ id: Post.ID, _ edit: PostEdit) async throws -> Post
    /// Deletes one of the signed-in user's posts with its comments and likes.
    func delete(_ id: Post.ID) async throws
    /// One post.
    /// - Throws: `.notFound` when it does not exist or is hidden from the viewer by a block.
    func post(_ id: Post.ID) async throws -> Post
    /// The community feed, newest first.
    func feed(page: PageRequest) async throws -> Page<Post>
    /// A user's posts, newest first; another user's anonymous posts are never listed.
    /// - Parameter userID: Whose posts; `nil` for the signed-in user's own (anonymous ones included).
    func posts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post>
    /// A user's posts of one day (their own time zone's day, as on their calendar), newest first: what a day view
    /// lists beside the day's entries. Another user's anonymous posts are never listed.
    /// - Parameters:
    ///   - userID: Whose posts; `nil` for the signed-in user's own (anonymous ones included).
    ///   - day: The day.
    /// - Throws: `.notFound` when the user does not exist or there is a block either way.
    func posts(by userID: User.ID?, on day: LocalDate) async throws -> [Post]
    /// Posts matching words and tags, newest first.
    /// - Throws: `.invalidInput` when the search says nothing.
    func search(_ search: PostSearch, page: PageRequest) async throws -> Page<Post>
    /// Likes a post (liking twice is harmless).
    func like(_ id: Post.ID) async throws -> Post
    /// Removes a like (harmless when there is none).
    func unlike(_ id: Post.ID) async throws -> Post
    /// Posts a user liked, most recently liked first.
    /// - Parameter userID: Whose likes; `nil` for the signed-in user's.
    func likedPosts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post>
    /// Who liked a post, most recent like first. People with a block either way with the signed-in user are left
    /// out, and so is the author of an anonymous post (their like would name them) for everyone but that author.
    /// - Throws: `.notFound` when the post does not exist or is hidden from the viewer by a block.
    func likers(of id: Post.ID, page: PageRequest) async throws -> Page<User>
}

/// Comments and replies on entries and posts.
public protocol CommentRepository: Sendable {
    /// Adds a comment or a reply.
    /// - Throws: `.invalidInput` (blank, too long, reply to a reply); `.notFound` for a target the user cannot
    ///   see, or whose author blocked them.
    func addComment(_ draft: CommentDraft) async throws -> Comment
    /// Edits one of the signed-in user's comments.
    func editComment(_ id: Comment.ID, body: String, mood: Mood?) async throws -> Comment
    /// Deletes one of the signed-in user's comments and its replies; the target's author may also delete comments on
    /// their own entry or post.
    func deleteComment(_ id: Comment.ID) async throws
    /// The comment threads on a target, oldest first, leaving out named comments by users with a block either way
    /// and anonymous comments by authors the viewer blocked anonymously.
    func comments(on target: CommentTarget, page: PageRequest) async throws -> Page<CommentThread>
}

/// Follows, blocks and reports.
public protocol SocialRepository: Sendable {
    /// Follows a user.
    /// - Throws: `.notFound` when they do not exist or a block stands either way; `.invalidInput` for yourself.
    func follow(_ userID: User.ID) async throws
    /// Stops following a user.
    func unfollow(_ userID: User.ID) async throws
    /// A user's followers, most recent first, leaving out users with a block either way with the viewer.
    func followers(of userID: User.ID, page: PageRequest) async throws -> Page<User>
    /// Who a user follows, most recent first, with the same filtering.
    func following(of userID: User.ID, page: PageRequest) async throws -> Page<User>
    /// How the signed-in user and another user are related.
    func relationship(with userID: User.ID) async throws -> Relationship
    /// Blocks a user: follows between you end, and each of you disappears for the other, with everything you wrote
    /// under your names. Anonymous content stays: hiding it by who wrote it would say who wrote it (block the author
    /// of an anonymous post or comment with ``blockAuthor(of:)`` instead).
    func block(_ userID: User.ID) async throws
    /// Lifts a block.
    func unblock(_ userID: User.ID) async throws
    /// Blocks the author of a post or comment from the content itself.
    ///
    /// For named content this is ``block(_:)`` of its author. For someone else's anonymous content it hides that
    /// author's anonymous posts, comments and notifications from you, now and later, without telling you who they
    /// are: their named content, their profile and your ``blockedUsers(page:)`` stay as they were, and they are not
    /// told. Blocking the same anonymous author again is harmless, even through content it already hides.
    /// - Parameter content: The post or comment.
    /// - Throws: `.notFound` for content you cannot see; `.invalidInput` on `content` for your own.
    func blockAuthor(of content: AuthoredContent) async throws
    /// Lifts every block made with ``blockAuthor(of:)`` on anonymous content, so those authors' anonymous posts,
    /// comments and notifications show again. The authors stay unnamed, so they can only be lifted together (an app
    /// offers it as "show hidden anonymous authors again"); named blocks are untouched.
    /// - Returns: How many anonymous authors were hidden (0 when none were).
    @discardableResult
    func unblockAnonymousAuthors() async throws -> Int
    /// The users the signed-in user blocked, most recent first (never an author blocked anonymously).
    func blockedUsers(page: PageRequest) async throws -> Page<User>
    /// Reports a user or a piece of content.
    /// - Throws: `.invalidInput` for a too-long detail or `.other` with no detail; `.notFound` for a target that does
    ///   not exist, is your own, or that you may not read (a private, hidden or book entry, or content a block hides).
    func report(_ target: ReportTarget, reason: ReportReason, detail: String) async throws -> Report
}

/// The signed-in user's notifications.
public protocol NotificationRepository: Sendable {
    /// Notifications, newest first.
    func notifications(page: PageRequest) async throws -> Page<DiaryNotification>
    /// How many are unread.
    func unreadCount() async throws -> Int
    /// Marks one as read.
    func markRead(_ id: DiaryNotification.ID) async throws
    /// Marks all as read.
    func markAllRead() async throws
}

/// Blogs registered for import (the feed pipeline lives in the use cases; this is their storage).
public protocol BlogRepository: Sendable {
    /// Registers a blog for the signed-in user. The first blog is primary.
    /// - Throws: `.invalidInput` for malformed addresses; `.conflict` when the feed is already registered.
    func register(_ draft: BlogDraft) async throws -> Blog
    /// Edits one of the user's blogs.
    func updateBlog(_ id: Blog.ID, _ edit: BlogEdit) async throws -> Blog
    /// Deletes one of the user's blogs (its imported posts stay).
    func deleteBlog(_ id: Blog.ID) async throws
    /// Makes one of the user's blogs the primary one (and no other).
    func setPrimary(_ id: Blog.ID) async throws -> Blog
    /// A user's blogs, primary first.
    /// - Parameter userID: Whose; `nil` for the signed-in user's.
    func blogs(of userID: User.ID?) async throws -> [Blog]
    /// One blog.
    func blog(_ id: Blog.ID) async throws -> Blog
    /// Records the outcome of a sync.
    @_spi(Engine)
    func recordSync(_ id: Blog.ID, _ state: BlogSyncState) async throws -> Blog
    /// Imports one feed item as a post of the blog's owner, deduplicating by GUID and then by link.
    @_spi(Engine)
    func importItem(_ item: ImportedItem, into id: Blog.ID) async throws -> ImportOutcome
    /// Imports up to ``ImportedItem/maximumBatchSize`` items at once (one request over HTTP, one transaction on the
    /// built-in backends), as ``importItem(_:into:)`` does each.
    /// - Returns: Each item's result, in order.
    /// - Throws: `.invalidInput` on `items` for a batch over the limit; as ``importItem(_:into:)`` for the blog.
    @_spi(Engine)
    func importItems(_ items: [ImportedItem], into id: Blog.ID) async throws -> [ImportItemResult]
}

// MARK: - Default implementations

extension BlogRepository {
    /// Imports the items one by one with ``importItem(_:into:)``, so a repository written before batches existed
    /// keeps working; an item refused as `.invalidInput` gets a failure result and the others go on.
    @_spi(Engine)
    public func importItems(_ items: [ImportedItem], into id: Blog.ID) async throws -> [ImportItemResult] {
        try ImportedItem.checkBatch(items)
        var results: [ImportItemResult] = []
        for item in items {
            do {
                results.append(ImportItemResult(outcome: try await importItem(item, into: id)))
            } catch let error as DiaryError where error.code == .invalidInput {
                results.append(ImportItemResult(failure: error))
            }
        }
        return results
    }
}
