import Foundation

/// What a ``FeedFetching`` fetch returned.
public enum FeedFetchResponse: Sendable, Hashable {
    /// The server answered `304 Not Modified`: the caller's copy is current.
    case notModified
    /// The server sent a document.
    case fetched(FetchedFeedDocument)
}
