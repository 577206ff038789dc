import Foundation

/// A link element of a feed or item (Atom `link`, RSS `atom:link`, `link`).
public struct FeedLink: Codable, Sendable, Hashable {
    /// The resolved target.
    public var href: URL
    /// The relation, `alternate` when the document gave none.
    public var rel: String
    /// The advertised media type.
    public var type: String?
    /// The advertised title.
    public var title: String?
    /// The advertised length in bytes.
    public var length: Int64?

    /// Creates a link.
    /// - Parameters:
    ///   - href: The resolved target URL.
    ///   - rel: The link relation.
    ///   - type: The advertised media type.
    ///   - title: The advertised title.
    ///   - length: The advertised length in bytes.
    /// - Returns: A new link value.
    public init(href: URL, rel: String = "alternate", type: String? = nil, title: String? = nil, length: Int64? = nil) {
        self.href = href
        self.rel = rel
        self.type = type
        self.title = title
        self.length = length
    }
}
