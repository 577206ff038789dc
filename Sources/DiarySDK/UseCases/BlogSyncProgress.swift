import Foundation

/// One step of a ``BlogSync/syncAll()`` run, with how far the run has come.
public struct BlogSyncProgress: Sendable {
    /// What happened.
    public var event: Event
    /// Blogs finished so far (succeeded or failed).
    public var finishedCount: Int
    /// Blogs in the run.
    public var totalCount: Int

    /// What happened in a sync run.
    public enum Event: Sendable {
        /// A blog's sync started.
        case started(Blog)
        /// A blog synced; the report says what was imported.
        case finished(Blog, BlogSyncReport)
        /// A blog's sync failed; the others go on. The error is also recorded as the blog's `sync.lastError`.
        case failed(Blog, DiaryError)
        /// Every blog is done; always the last event.
        case completed(BlogSyncSummary)
    }

    /// Creates a progress value.
    /// - Parameters:
    ///   - event: What happened.
    ///   - finishedCount: Blogs finished so far.
    ///   - totalCount: Blogs in the run.
    public init(event: Event, finishedCount: Int, totalCount: Int) {
        self.event = event
        self.finishedCount = finishedCount
        self.totalCount = totalCount
    }
}
