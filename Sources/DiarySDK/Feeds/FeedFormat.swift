import Foundation

/// The syndication format a document was detected as.
public enum FeedFormat: String, Codable, Sendable, Hashable, CaseIterable {
    /// RSS 0.90 (the RDF-based Netscape format).
    case rss090
    /// RSS 0.91 – 0.94 (UserLand / Netscape flavours).
    case rss09x
    /// RSS 1.0 (RDF Site Summary).
    case rss10
    /// RSS 2.0 (also used when an `<rss>` root has no or an unknown version).
    case rss20
    /// Atom 0.3 (pre-standard).
    case atom03
    /// Atom 1.0 (RFC 4287).
    case atom10
    /// JSON Feed 1.0.
    case jsonFeed10
    /// JSON Feed 1.1.
    case jsonFeed11
}
