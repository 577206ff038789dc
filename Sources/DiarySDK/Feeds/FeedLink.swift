import Foundation

/// A link element of a feed or item (Atom `link`, RSS `atom:link`, `link`).
public struct FeedLink: Codable, Sendable, Hashable {
    /// The resolved target, kept as its absolute string: parsing a `URL` costs more than the rest of an item's link,
    /// and most readers of a feed never ask for it. Always a string `URL(string:)` accepts.
    var hrefText: String

    /// The resolved target.
    ///
    /// Built from the stored absolute string on each access; setting it stores the new URL's `absoluteString`, so
    /// a URL relative to a base reads back as the absolute URL it stands for.
    public var href: URL {
        get { FeedURLText.url(hrefText) }
        set { hrefText = newValue.absoluteString }
    }
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
        self.init(hrefText: href.absoluteString, rel: rel, type: type, title: title, length: length)
    }

    /// A link to `hrefText`, an absolute URL string that `URL(string:)` accepts (checked by ``FeedURLText``).
    init(hrefText: String, rel: String = "alternate", type: String? = nil, title: String? = nil, length: Int64? = nil) {
        self.hrefText = hrefText
        self.rel = rel
        self.type = type
        self.title = title
        self.length = length
    }

    private enum CodingKeys: String, CodingKey {
        case href, rel, type, title, length
    }

    /// Decodes the format the stored `URL` had: `href` is decoded as a `URL`.
    /// - Parameter decoder: The decoder.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hrefText = try container.decode(URL.self, forKey: .href).absoluteString
        rel = try container.decode(String.self, forKey: .rel)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        length = try container.decodeIfPresent(Int64.self, forKey: .length)
    }

    /// Encodes `href` as a `URL` (as before it was stored as text), so every encoder writes what it wrote then.
    /// - Parameter encoder: The encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(href, forKey: .href)
        try container.encode(rel, forKey: .rel)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(length, forKey: .length)
    }
}
