import Foundation

/// The outcome of a successful parse: the feed and what was repaired or ignored on the way.
public struct FeedParseResult: Sendable, Hashable {
    /// The parsed feed.
    public var feed: Feed
    /// Repairs and problems noticed while parsing (empty for a clean document).
    public var diagnostics: [FeedDiagnostic]
    /// The character encoding the document was decoded from (lower-case IANA name, e.g. `utf-8`, `euc-kr`).
    public var encoding: String

    /// Creates a result.
    /// - Parameters:
    ///   - feed: The parsed feed.
    ///   - diagnostics: The diagnostics.
    ///   - encoding: The source encoding name.
    /// - Returns: A new result.
    public init(feed: Feed, diagnostics: [FeedDiagnostic] = [], encoding: String = "utf-8") {
        self.feed = feed
        self.diagnostics = diagnostics
        self.encoding = encoding
    }

    /// Whether the document was not clean XML and had to be repaired (feedparser's `bozo`).
    /// - Returns: `true` when any diagnostic reports a repair.
    public var wasRepaired: Bool { diagnostics.contains { $0.severity == .repaired } }
}
