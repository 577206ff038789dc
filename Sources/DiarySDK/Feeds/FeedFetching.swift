import Foundation

/// Fetches feed documents over HTTP for registration and sync: the one seam between the feed pipeline and the network.
///
/// Use the built-in ``URLSessionFeedFetcher`` in apps. An HTTP backend can serve feeds through its own session, and
/// tests can serve canned documents, by writing a fetcher of their own:
///
/// ```swift
/// struct CannedFeedFetcher: FeedFetching {
///     let documents: [URL: Data]
///
///     func fetch(_ request: FeedFetchRequest) async throws -> FeedFetchResponse {
///         guard let data = documents[request.url] else { throw DiaryError.notFound("feed \(request.url)") }
///         return .fetched(FetchedFeedDocument(data: data, finalURL: request.url))
///     }
/// }
/// ```
///
/// A fetcher honours the request's validators (``FeedFetchRequest/etag`` and ``FeedFetchRequest/lastModified``) by
/// sending `If-None-Match` / `If-Modified-Since` and reporting a `304` as ``FeedFetchResponse/notModified``.
public protocol FeedFetching: Sendable {
    /// Fetches one document.
    /// - Parameter request: The address and the validators of the copy the caller already has.
    /// - Returns: ``FeedFetchResponse/notModified`` when the server answered `304`, else the document.
    /// - Throws: `DiaryError`: `.notFound` for a `404`/`410`, `.unavailable` for network failures, timeouts and `5xx`
    ///   (with ``DiaryError/httpStatus`` set when there was a status), `.invalidInput` (field `"feedURL"`) for other
    ///   client errors, too many redirects or a document over the size limit, `.cancelled` when the task was cancelled.
    func fetch(_ request: FeedFetchRequest) async throws -> FeedFetchResponse
}
