import Foundation

/// An `AsyncSequence` of every page of a listing, fetched one at a time as you iterate.
///
/// ```swift
/// for try await page in PageSequence(first: .first(size: 50), fetch: sdk.posts.feed) {
///     show(page.items)
/// }
/// ```
/// Iteration ends after the last page; an error ends it with that error.
public struct PageSequence<Item: Sendable>: AsyncSequence, Sendable {
    /// The element: one page.
    public typealias Element = Page<Item>

    private let first: PageRequest
    private let fetch: @Sendable (PageRequest) async throws -> Page<Item>

    /// Creates a sequence.
    /// - Parameters:
    ///   - first: The first request (cursor or number mode).
    ///   - fetch: Fetches one page.
    public init(first: PageRequest = .first(), fetch: @escaping @Sendable (PageRequest) async throws -> Page<Item>) {
        self.first = first
        self.fetch = fetch
    }

    /// Every item of every page, in order.
    public var items: AsyncThrowingStream<Item, any Error> {
        let pages = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await page in pages {
                        for item in page.items { continuation.yield(item) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(next: first, fetch: fetch)
    }

    /// Fetches the next page on demand.
    public struct Iterator: AsyncIteratorProtocol {
        var next: PageRequest?
        let fetch: @Sendable (PageRequest) async throws -> Page<Item>

        /// The next page, or `nil` after the last one.
        /// - Throws: What the fetch throws.
        public mutating func next() async throws -> Page<Item>? {
            guard let request = next else { return nil }
            try Task.checkCancellation()
            let page = try await fetch(request)
            next = page.nextRequest
            return page
        }
    }
}
