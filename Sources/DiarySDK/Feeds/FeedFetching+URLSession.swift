import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The built-in ``FeedFetching``: conditional GETs over `URLSession`, with a size limit enforced while the body
/// streams in.
///
/// It sends `If-None-Match` / `If-Modified-Since` from the request's validators, a `User-Agent`, and an `Accept`
/// header preferring feeds; follows up to ``Configuration/maxRedirects`` redirects between `http`/`https` addresses;
/// and bypasses every local cache, so a `304` from the server reaches the caller as ``FeedFetchResponse/notModified``
/// on Apple platforms and on Linux alike.
///
/// ```swift
/// let fetcher = URLSessionFeedFetcher()
/// let sync = BlogSync(blogs: sdk.blogs, fetcher: fetcher)
/// ```
///
/// The fetcher owns its `URLSession` (built from ``Configuration/sessionConfiguration``, ephemeral by default) and
/// invalidates it when released. Keep one fetcher for the app rather than one per request.
public final class URLSessionFeedFetcher: FeedFetching {
    /// Limits and headers of a ``URLSessionFeedFetcher``.
    public struct Configuration: Sendable, Hashable {
        /// Seconds without progress after which a request fails with `.unavailable` (default 30).
        public var timeout: TimeInterval
        /// The largest body accepted, in bytes (default 16 MiB, the parser's own limit); a larger body is abandoned as
        /// soon as it crosses the limit and the fetch fails with `.invalidInput` for `"feedURL"`.
        public var maxBytes: Int
        /// How many redirects are followed before the fetch fails (default 5).
        public var maxRedirects: Int
        /// The `User-Agent` header.
        public var userAgent: String

        /// Creates a configuration.
        /// - Parameters:
        ///   - timeout: Seconds without progress before a request fails.
        ///   - maxBytes: The largest body accepted, in bytes.
        ///   - maxRedirects: How many redirects are followed.
        ///   - userAgent: The `User-Agent` header.
        public init(
            timeout: TimeInterval = 30, maxBytes: Int = 16 * 1_024 * 1_024, maxRedirects: Int = 5,
            userAgent: String = "DiarySDK-FeedFetcher/1.0 (+https://github.com/diarysdk)"
        ) {
            self.timeout = timeout
            self.maxBytes = maxBytes
            self.maxRedirects = maxRedirects
            self.userAgent = userAgent
        }
    }

    /// The `Accept` header: feeds first, then generic XML, then HTML pages (for autodiscovery).
    static let accept =
        "application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, "
        + "application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.7, */*;q=0.5"

    /// The limits in effect.
    public let configuration: Configuration
    private let session: URLSession
    private let transfers: FeedFetchSessionDelegate

    /// Creates a fetcher with its own session.
    /// - Parameters:
    ///   - configuration: Limits and headers.
    ///   - sessionConfiguration: The session's settings (proxies, TLS, extra headers); caching is always turned off.
    public init(configuration: Configuration = .init(), sessionConfiguration: URLSessionConfiguration = .ephemeral) {
        self.configuration = configuration
        let settings = sessionConfiguration
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        settings.urlCache = nil
        settings.timeoutIntervalForRequest = configuration.timeout
        settings.httpShouldSetCookies = false
        transfers = FeedFetchSessionDelegate(maxBytes: configuration.maxBytes, maxRedirects: configuration.maxRedirects)
        session = URLSession(configuration: settings, delegate: transfers, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Fetches one document with a conditional GET.
    /// - Parameter request: The address and validators.
    /// - Returns: ``FeedFetchResponse/notModified`` for a `304`, else the document with its validators.
    /// - Throws: `DiaryError` as described by ``FeedFetching/fetch(_:)``.
    public func fetch(_ request: FeedFetchRequest) async throws -> FeedFetchResponse {
        try Validation.webURL(request.url, field: "feedURL")
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: configuration.timeout)
        urlRequest.httpMethod = "GET"
        for (name, value) in headers(for: request) { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: urlRequest)
        let transfers = self.transfers
        let result = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FeedFetchSessionDelegate.Completed, any Error>) in
                transfers.begin(task, request: request, headers: headers(for: request), continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
        return try Self.response(result, for: request)
    }

    /// The headers every request (and every redirected request) carries.
    func headers(for request: FeedFetchRequest) -> [(String, String)] {
        var headers = [("User-Agent", configuration.userAgent), ("Accept", Self.accept)]
        if let etag = request.etag, !etag.isEmpty { headers.append(("If-None-Match", etag)) }
        if let lastModified = request.lastModified, !lastModified.isEmpty { headers.append(("If-Modified-Since", lastModified)) }
        return headers
    }

    /// Maps a finished transfer to a response or a `DiaryError`.
    static func response(_ completed: FeedFetchSessionDelegate.Completed, for request: FeedFetchRequest) throws -> FeedFetchResponse {
        let http = completed.response
        let status = http.statusCode
        let address = request.url.absoluteString
        let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
        switch status {
        case 304:
            return .notModified
        case 200..<300:
            return .fetched(
                FetchedFeedDocument(
                    data: completed.data, finalURL: http.url ?? request.url, etag: http.value(forHTTPHeaderField: "ETag"),
                    lastModified: http.value(forHTTPHeaderField: "Last-Modified"),
                    contentType: http.value(forHTTPHeaderField: "Content-Type")))
        case 404, 410:
            throw DiaryError(.notFound, "nothing was found at \(address) (HTTP \(status))", httpStatus: status)
        case 429:
            throw DiaryError(.rateLimited, "\(address) asked to slow down (HTTP 429)", retryAfter: retryAfter, httpStatus: status)
        case 500...:
            throw DiaryError(.unavailable, "the server of \(address) failed (HTTP \(status))", retryAfter: retryAfter, httpStatus: status)
        case 300..<400:
            throw DiaryError(.invalidInput, "\(address) redirected without a usable destination (HTTP \(status))", field: "feedURL",
                           reason: .invalidReference, httpStatus: status)
        default:
            throw DiaryError(.invalidInput, "the server of \(address) refused the request (HTTP \(status))", field: "feedURL",
                           reason: .invalidReference, httpStatus: status)
        }
    }
}
