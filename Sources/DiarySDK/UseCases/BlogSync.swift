import Foundation

/// Imports new and changed posts from a user's blogs: conditional GET, parse, import, record.
///
/// ```swift
/// let sync = BlogSync(blogs: sdk.blogs, fetcher: URLSessionFeedFetcher())
/// let report = try await sync.sync(blog.id)              // one blog
/// for try await progress in sync.syncAll() {             // every blog of the signed-in user
///     if case .failed(let blog, let error) = progress.event { show(error, for: blog) }
/// }
/// ```
///
/// - A `304 Not Modified` costs nothing: no parse and no write besides recording `lastSyncedAt`.
/// - Items are imported in batches of up to ``ImportedItem/maximumBatchSize`` through
///   ``BlogRepository/importItems(_:into:)`` (one request per batch over HTTP), which finds each item's existing post
///   by GUID, then by link, in one transaction; so neither a second sync, nor concurrent syncs from several devices, nor a
///   publisher rewriting its GUIDs to the same links creates a duplicate. Items with neither GUID nor link get a
///   synthetic key from their title and date.
/// - Syncs of the same blog through one `BlogSync` share a single flight: the second caller waits for the first
///   fetch instead of fetching again.
/// - A failure is recorded as the blog's `sync.lastError` (validators kept) and thrown as a `DiaryError`.
public final class BlogSync: Sendable {
    /// Where blogs and posts are stored (a device's `sdk.blogs`).
    public let blogs: any BlogRepository
    /// Where feeds come from.
    public let fetcher: any FeedFetching
    /// How feeds are parsed.
    public let parser: FeedParser
    /// The time recorded as `lastSyncedAt`, and the date of items without one.
    public let clock: any DiaryClock
    /// How many blogs ``syncAll()`` syncs at once.
    public let maxConcurrentBlogs: Int

    private struct Flight {
        let task: Task<BlogSyncReport, any Error>
        var waiters: Int
    }

    private let flights = Locked<[Blog.ID: Flight]>([:])

    /// Creates a sync use case.
    /// - Parameters:
    ///   - blogs: Where blogs and posts are stored.
    ///   - fetcher: Where feeds come from.
    ///   - parser: How feeds are parsed.
    ///   - clock: The time source for `lastSyncedAt` and undated items.
    ///   - maxConcurrentBlogs: How many blogs ``syncAll()`` syncs at once (at least 1).
    public init(
        blogs: any BlogRepository, fetcher: any FeedFetching, parser: FeedParser = FeedParser(),
        clock: any DiaryClock = SystemClock(), maxConcurrentBlogs: Int = 2
    ) {
        self.blogs = blogs
        self.fetcher = fetcher
        self.parser = parser
        self.clock = clock
        self.maxConcurrentBlogs = max(1, maxConcurrentBlogs)
    }

    /// Syncs one blog of the signed-in user.
    /// - Parameter id: The blog.
    /// - Returns: What was imported.
    /// - Throws: `DiaryError`: `.notFound` / `.forbidden` for a blog that is not the user's, the fetcher's errors
    ///   (`.unavailable`, `.notFound`, …), `.invalidInput` for `"feedURL"` when the document is not a feed,
    ///   `.cancelled`.
    public func sync(_ id: Blog.ID) async throws -> BlogSyncReport {
        let task = flights.withLock { flights -> Task<BlogSyncReport, any Error> in
            if var flight = flights[id] {
                flight.waiters += 1
                flights[id] = flight
                return flight.task
            }
            let task = Task<BlogSyncReport, any Error> {
                defer { self.flights.withLock { $0[id] = nil } }
                return try await self.perform(id)
            }
            flights[id] = Flight(task: task, waiters: 1)
            return task
        }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                let last = self.flights.withLock { flights -> Bool in
                    guard var flight = flights[id], flight.task == task else { return false }
                    flight.waiters -= 1
                    flights[id] = flight
                    return flight.waiters == 0
                }
                if last { task.cancel() }
            }
        } catch {
            throw DiaryError.wrapping(error)
        }
    }

    /// One sync, outside the single-flight bookkeeping.
    private func perform(_ id: Blog.ID) async throws -> BlogSyncReport {
        let blog = try await blogs.blog(id)
        let fetchedAt = clock.now()
        do {
            let request = FeedFetchRequest(url: blog.feedURL, etag: blog.sync.etag, lastModified: blog.sync.lastModified)
            switch try await fetcher.fetch(request) {
            case .notModified:
                var state = blog.sync
                state.lastSyncedAt = fetchedAt
                state.lastError = nil
                _ = try await blogs.recordSync(id, state)
                return BlogSyncReport(blogID: id, notModified: true, syncedAt: fetchedAt)
            case .fetched(let document):
                let feed = try FeedDocumentReader.feed(from: document, parser: parser)
                var report = BlogSyncReport(blogID: id, notModified: false, syncedAt: fetchedAt)
                var batch: [ImportedItem] = []
                for item in Self.oldestFirst(feed.items) {
                    guard let imported = Self.importedItem(item, fetchedAt: fetchedAt) else {
                        report.skipped += 1
                        continue
                    }
                    batch.append(imported)
                }
                // A batch per call: one request per 100 items over HTTP, not one per item.
                for start in stride(from: 0, to: batch.count, by: ImportedItem.maximumBatchSize) {
                    try Task.checkCancellation()
                    let chunk = Array(batch[start..<min(start + ImportedItem.maximumBatchSize, batch.count)])
                    for result in try await blogs.importItems(chunk, into: id) {
                        switch result.outcome {
                        case .created: report.created += 1
                        case .updated: report.updated += 1
                        case .unchanged: report.unchanged += 1
                        case nil: report.skipped += 1
                        }
                    }
                }
                _ = try await blogs.recordSync(
                    id, BlogSyncState(lastSyncedAt: fetchedAt, etag: document.etag, lastModified: document.lastModified))
                return report
            }
        } catch {
            let failure = DiaryError.wrapping(error)
            if failure.code != .cancelled && failure.code != .unauthenticated {
                var state = blog.sync
                state.lastError = failure.message
                _ = try? await blogs.recordSync(id, state)
            }
            throw failure
        }
    }

    /// Items in publication order (undated ones keep their place relative to each other, after dated ones).
    static func oldestFirst(_ items: [FeedItem]) -> [FeedItem] {
        items.enumerated().sorted { lhs, rhs in
            let l = lhs.element.published ?? lhs.element.updated ?? .distantFuture
            let r = rhs.element.published ?? rhs.element.updated ?? .distantFuture
            return l != r ? l < r : lhs.offset > rhs.offset
        }.map(\.element)
    }
}
