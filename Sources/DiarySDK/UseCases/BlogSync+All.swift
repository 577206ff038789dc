import Foundation

extension BlogSync {
    /// Syncs every blog of the signed-in user, a few at a time, reporting progress as it goes.
    ///
    /// One broken blog does not stop the others: it is reported as ``BlogSyncProgress/Event/failed(_:_:)`` (and its
    /// error recorded as the blog's `sync.lastError`). The last event is always
    /// ``BlogSyncProgress/Event/completed(_:)``. Stopping the iteration cancels the run.
    /// - Returns: The progress events; the stream throws only when the blogs cannot be listed (for example
    ///   `.unauthenticated`).
    public func syncAll() -> AsyncThrowingStream<BlogSyncProgress, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let mine = try await self.blogs.blogs(of: nil)
                    let summary = await self.run(mine, continuation: continuation)
                    continuation.yield(BlogSyncProgress(event: .completed(summary), finishedCount: mine.count, totalCount: mine.count))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: DiaryError.wrapping(error))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func run(
        _ blogs: [Blog], continuation: AsyncThrowingStream<BlogSyncProgress, any Error>.Continuation
    ) async -> BlogSyncSummary {
        var summary = BlogSyncSummary()
        var finished = 0
        let total = blogs.count
        await withTaskGroup(of: (Blog, Result<BlogSyncReport, DiaryError>).self) { group in
            var pending = blogs[...]
            var running = 0
            while running > 0 || !pending.isEmpty {
                while running < maxConcurrentBlogs, let blog = pending.popFirst() {
                    continuation.yield(BlogSyncProgress(event: .started(blog), finishedCount: finished, totalCount: total))
                    group.addTask {
                        do {
                            return (blog, .success(try await self.sync(blog.id)))
                        } catch {
                            return (blog, .failure(DiaryError.wrapping(error)))
                        }
                    }
                    running += 1
                }
                guard let (blog, result) = await group.next() else { break }
                running -= 1
                finished += 1
                switch result {
                case .success(let report):
                    summary.succeeded += 1
                    summary.created += report.created
                    summary.updated += report.updated
                    summary.unchanged += report.unchanged
                    continuation.yield(BlogSyncProgress(event: .finished(blog, report), finishedCount: finished, totalCount: total))
                case .failure(let error):
                    summary.failed += 1
                    continuation.yield(BlogSyncProgress(event: .failed(blog, error), finishedCount: finished, totalCount: total))
                }
            }
        }
        return summary
    }
}
