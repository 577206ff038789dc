import Foundation

/// One entry of a feed, whatever the source format (RSS `item`, Atom `entry`, JSON Feed item).
public struct FeedItem: Codable, Sendable, Hashable {
    /// The identifier: RSS `guid`, Atom `id` or JSON Feed `id`.
    public var id: String?
    /// RSS `guid isPermaLink` (`true` when the attribute is absent); `nil` for other formats or without a guid.
    public var guidIsPermaLink: Bool?
    /// The title, trimmed with internal whitespace runs collapsed.
    public var title: String?
    /// The item's web page (RSS `link`, Atom alternate link, JSON `url`), resolved.
    public var link: URL?
    /// Every link the item declared, resolved, in document order (RSS `enclosure`s too, with `rel` `"enclosure"`, as
    /// Atom's enclosure links are).
    public var links: [FeedLink]
    /// The summary (RSS `description`, Atom `summary`, JSON `summary`).
    public var summary: String?
    /// The full content (`content:encoded`, Atom `content`, JSON `content_html` / `content_text`).
    public var content: String?
    /// How `content` is encoded.
    public var contentType: FeedContentType?
    /// The publication instant.
    public var published: Date?
    /// The last-modification instant.
    public var updated: Date?
    /// The authors, in document order.
    public var authors: [FeedPerson]
    /// The category terms, in document order.
    public var categories: [String]
    /// The categories with scheme and label.
    public var categoryDetails: [FeedCategory]
    /// The enclosures (RSS `enclosure`, Atom `rel="enclosure"`, JSON attachments).
    public var enclosures: [FeedEnclosure]
    /// Media RSS `media:content` objects.
    public var media: [FeedMedia]
    /// Media RSS `media:thumbnail` objects (and JSON Feed `image`).
    public var thumbnails: [FeedMedia]
    /// The RSS `comments` page, resolved.
    public var commentsURL: URL?
    /// `itunes:duration` converted to seconds.
    public var itunesDuration: TimeInterval?
    /// `itunes:episode`.
    public var itunesEpisode: Int?
    /// `itunes:explicit` (`yes`/`true`/`explicit` → `true`, `no`/`false`/`clean` → `false`).
    public var itunesExplicit: Bool?
    /// `itunes:image href`, resolved.
    public var itunesImageURL: URL?

    /// Creates an item; every field defaults to empty.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - title: The title.
    ///   - link: The item's web page.
    /// - Returns: A new item.
    public init(id: String? = nil, title: String? = nil, link: URL? = nil) {
        self.id = id
        self.title = title
        self.link = link
        self.links = []
        self.authors = []
        self.categories = []
        self.categoryDetails = []
        self.enclosures = []
        self.media = []
        self.thumbnails = []
    }

    /// A key that identifies the item across fetches: the id if present, else the link, else title plus date.
    ///
    /// The key is prefixed by its origin (`id:`, `link:`, `title:`) so that the three kinds never collide.
    /// - Returns: The key, or `nil` when the item has neither id, link, title nor date.
    public var stableKey: String? {
        if let id, !id.isEmpty { return "id:" + id }
        if let link { return "link:" + link.absoluteString }
        let date = published ?? updated
        if title == nil && date == nil { return nil }
        let stamp = date.map { String(Int64($0.timeIntervalSince1970.rounded(.down))) } ?? ""
        return "title:" + (title ?? "") + "|" + stamp
    }
}
