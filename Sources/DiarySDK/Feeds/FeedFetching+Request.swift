import Foundation

/// One conditional GET: the address and the validators from the previous fetch.
public struct FeedFetchRequest: Sendable, Hashable {
    /// The address to fetch.
    public var url: URL
    /// The `ETag` of the copy the caller has; sent as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` of the copy the caller has; sent as `If-Modified-Since`.
    public var lastModified: String?

    /// Creates a request.
    /// - Parameters:
    ///   - url: The address to fetch.
    ///   - etag: The previous `ETag`, if any.
    ///   - lastModified: The previous `Last-Modified`, if any.
    public init(url: URL, etag: String? = nil, lastModified: String? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
    }
}
