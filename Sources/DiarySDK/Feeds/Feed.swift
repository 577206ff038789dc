import Foundation

/// A parsed feed, whatever the source format.
public struct Feed: Codable, Sendable, Hashable {
    /// The detected format.
    public var format: FeedFormat
    /// The title, trimmed with internal whitespace runs collapsed.
    public var title: String?
    /// The web site the feed belongs to, resolved.
    public var link: URL?
    /// The feed's own URL (`atom:link rel="self"`, JSON `feed_url`), resolved.
    public var feedURL: URL?
    /// Every feed-level link, resolved.
    public var links: [FeedLink]
    /// The description / subtitle / tagline.
    public var summary: String?
    /// The feed id (Atom `id`), if any.
    public var id: String?
    /// The language tag (`language`, `dc:language`, `xml:lang` of the root).
    public var language: String?
    /// The last update instant (`lastBuildDate`, `dc:date`, Atom `updated`).
    public var updated: Date?
    /// The publication instant (RSS `pubDate`, `dcterms:issued`).
    public var published: Date?
    /// The authors / managing editor.
    public var authors: [FeedPerson]
    /// The feed's categories (including iTunes categories).
    public var categories: [FeedCategory]
    /// The feed image or logo (`image/url`, `itunes:image`, Atom `logo`/`icon`, JSON `icon`), resolved.
    public var imageURL: URL?
    /// The items, in document order.
    public var items: [FeedItem]

    /// Creates a feed.
    /// - Parameters:
    ///   - format: The source format.
    ///   - title: The title.
    ///   - items: The items.
    /// - Returns: A new feed.
    public init(format: FeedFormat, title: String? = nil, items: [FeedItem] = []) {
        self.format = format
        self.title = title
        self.links = []
        self.authors = []
        self.categories = []
        self.items = items
    }

    /// The description; an alias of ``summary``.
    /// - Returns: The feed description.
    public var description: String? { summary }
}
