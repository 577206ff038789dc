import Foundation

/// A fetched document with the headers the feed pipeline needs.
public struct FetchedFeedDocument: Sendable, Hashable {
    /// The body, as sent (not yet decoded).
    public var data: Data
    /// The address the body came from after redirects; relative links in the document resolve against it.
    public var finalURL: URL
    /// The response's `ETag`, for the next conditional GET.
    public var etag: String?
    /// The response's `Last-Modified`, for the next conditional GET.
    public var lastModified: String?
    /// The response's `Content-Type` header, as sent (for example `application/rss+xml; charset=EUC-KR`).
    public var contentType: String?

    /// Creates a document.
    /// - Parameters:
    ///   - data: The body.
    ///   - finalURL: The address after redirects.
    ///   - etag: The `ETag` header.
    ///   - lastModified: The `Last-Modified` header.
    ///   - contentType: The `Content-Type` header.
    public init(data: Data, finalURL: URL, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil) {
        self.data = data
        self.finalURL = finalURL
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }

    /// The media type without parameters, lower-cased (`"application/rss+xml"`), if the server sent one.
    public var mediaType: String? {
        guard let contentType else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) }
        return type.flatMap { $0.isEmpty ? nil : $0.lowercased() }
    }

    /// The `charset` parameter of ``contentType``, if any (`"EUC-KR"`).
    public var charset: String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// Whether the server labelled the body as an HTML page (rather than a feed).
    public var isHTML: Bool {
        mediaType == "text/html" || mediaType == "application/xhtml+xml"
    }
}
