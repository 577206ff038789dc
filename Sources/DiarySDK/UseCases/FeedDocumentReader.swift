import Foundation

/// Turns a fetched document into a ``Feed``, with parse failures as the `DiaryError` users see.
enum FeedDocumentReader {
    /// Parses a fetched document.
    /// - Parameters:
    ///   - document: The document.
    ///   - parser: The parser.
    /// - Returns: The feed.
    /// - Throws: `.invalidInput` for `"feedURL"` when the document is an HTML page, not a feed, or unreadable.
    static func feed(from document: FetchedFeedDocument, parser: FeedParser) throws -> Feed {
        let address = document.finalURL.absoluteString
        do {
            return try parser.parse(document.data, documentURL: document.finalURL, httpCharset: document.charset).feed
        } catch let error as FeedParsingError {
            let what: String
            switch error.code {
            case .notAFeed, .unsupportedFormat:
                what = document.isHTML ? "is a web page, not an RSS, Atom or JSON feed" : "is not an RSS, Atom or JSON feed"
            case .tooLarge:
                what = "is larger than the feed size limit"
            default:
                what = "is not a readable feed"
            }
            throw DiaryError(
                .invalidInput, "\(address) \(what) (\(error.message))", field: "feedURL",
                reason: error.code == .tooLarge ? .tooLong : .invalidFormat, underlying: error)
        }
    }
}
