import Foundation

/// What syncing one blog did.
public struct BlogSyncReport: Sendable, Hashable {
    /// The blog.
    public var blogID: Blog.ID
    /// The server answered `304 Not Modified`: nothing was parsed or imported.
    public var notModified: Bool
    /// Items imported as new posts.
    public var created: Int
    /// Items whose post changed and was updated.
    public var updated: Int
    /// Items already imported unchanged.
    public var unchanged: Int
    /// Items skipped because nothing identifies them (no id, link, title, date or text), or refused one by one by
    /// the repository (``ImportItemResult/failure``).
    public var skipped: Int
    /// When the sync fetched the feed.
    public var syncedAt: Date

    /// Creates a report.
    /// - Parameters:
    ///   - blogID: The blog.
    ///   - notModified: Whether the server answered `304`.
    ///   - created: New posts.
    ///   - updated: Updated posts.
    ///   - unchanged: Unchanged posts.
    ///   - skipped: Skipped items.
    ///   - syncedAt: When the feed was fetched.
    public init(
        blogID: Blog.ID, notModified: Bool, created: Int = 0, updated: Int = 0, unchanged: Int = 0, skipped: Int = 0,
        syncedAt: Date
    ) {
        self.blogID = blogID
        self.notModified = notModified
        self.created = created
        self.updated = updated
        self.unchanged = unchanged
        self.skipped = skipped
        self.syncedAt = syncedAt
    }
}

/// The totals of a ``BlogSync/syncAll()`` run.
public struct BlogSyncSummary: Sendable, Hashable {
    /// Blogs synced without error (including `304`s).
    public var succeeded: Int
    /// Blogs whose sync failed.
    public var failed: Int
    /// New posts across all blogs.
    public var created: Int
    /// Updated posts across all blogs.
    public var updated: Int
    /// Unchanged items across all blogs.
    public var unchanged: Int

    /// Creates a summary.
    /// - Parameters:
    ///   - succeeded: Blogs synced.
    ///   - failed: Blogs that failed.
    ///   - created: New posts.
    ///   - updated: Updated posts.
    ///   - unchanged: Unchanged items.
    public init(succeeded: Int = 0, failed: Int = 0, created: Int = 0, updated: Int = 0, unchanged: Int = 0) {
        self.succeeded = succeeded
        self.failed = failed
        self.created = created
        self.updated = updated
        self.unchanged = unchanged
    }
}
