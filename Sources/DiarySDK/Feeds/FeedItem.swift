import Foundation

/// One entry of a feed, whatever the source format (RSS `item`, Atom `entry`, JSON Feed item).
public struct FeedItem: Codable, Sendable, Hashable {
    /// The identifier: RSS `guid`, Atom `id` or JSON Feed `id`.
    public var id: String?
    /// RSS `guid isPermaLink` (`true` when the attribute is absent); `nil` for other formats or without a guid.
    public var guidIsPermaLink: Bool?
    /// The title, trimmed with internal whitespace runs collapsed.
    public var title: String?
    /// The item's web page as its absolute string (see ``link``); always a string `URL(string:)` accepts.
    var linkText: String?
    /// The item's web page (RSS `link`, Atom alternate link, JSON `url`), resolved.
    ///
    /// Kept as its absolute string and built on each access (most readers of a feed never ask for it, and parsing a
    /// `URL` cost more than the rest of the item's link); setting it stores the new URL's `absoluteString`.
    public var link: URL? {
        get { linkText.map(FeedURLText.url) }
        set { linkText = newValue?.absoluteString }
    }
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
    /// The category terms, in document order: the terms of ``categoryDetails``.
    ///
    /// Derived on each access rather than stored beside the details. Setting it keeps the detail at each position
    /// whose term is unchanged (so appending a term keeps every scheme and label) and gives a new term no scheme.
    public var categories: [String] {
        get { categoryDetails.map(\.term) }
        set {
            var details: [FeedCategory] = []
            details.reserveCapacity(newValue.count)
            for (index, term) in newValue.enumerated() {
                if index < categoryDetails.count, categoryDetails[index].term == term {
                    details.append(categoryDetails[index])
                } else {
                    details.append(FeedCategory(term: term))
                }
            }
            categoryDetails = details
        }
    }
    /// The categories with scheme and label, in document order.
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
        self.linkText = link?.absoluteString
        self.links = []
        self.authors = []
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
        if let linkText { return "link:" + linkText }
        let date = published ?? updated
        if title == nil && date == nil { return nil }
        let stamp = date.map { String(Int64($0.timeIntervalSince1970.rounded(.down))) } ?? ""
        return "title:" + (title ?? "") + "|" + stamp
    }

    private enum CodingKeys: String, CodingKey {
        case id, guidIsPermaLink, title, link, links, summary, content, contentType, published, updated, authors, categories,
             categoryDetails, enclosures, media, thumbnails, commentsURL, itunesDuration, itunesEpisode, itunesExplicit,
             itunesImageURL
    }

    /// Decodes the format the synthesized conformance had (`link` as a `URL`, `categories` beside `categoryDetails`).
    /// - Parameter decoder: The decoder.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        guidIsPermaLink = try c.decodeIfPresent(Bool.self, forKey: .guidIsPermaLink)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        linkText = try c.decodeIfPresent(URL.self, forKey: .link)?.absoluteString
        links = try c.decode([FeedLink].self, forKey: .links)
        summary = try c.decodeIfPresent(String.self, forKey: .summary)
        content = try c.decodeIfPresent(String.self, forKey: .content)
        contentType = try c.decodeIfPresent(FeedContentType.self, forKey: .contentType)
        published = try c.decodeIfPresent(Date.self, forKey: .published)
        updated = try c.decodeIfPresent(Date.self, forKey: .updated)
        authors = try c.decode([FeedPerson].self, forKey: .authors)
        let terms = try c.decode([String].self, forKey: .categories)
        let details = try c.decode([FeedCategory].self, forKey: .categoryDetails)
        categoryDetails = details
        enclosures = try c.decode([FeedEnclosure].self, forKey: .enclosures)
        media = try c.decode([FeedMedia].self, forKey: .media)
        thumbnails = try c.decode([FeedMedia].self, forKey: .thumbnails)
        commentsURL = try c.decodeIfPresent(URL.self, forKey: .commentsURL)
        itunesDuration = try c.decodeIfPresent(TimeInterval.self, forKey: .itunesDuration)
        itunesEpisode = try c.decodeIfPresent(Int.self, forKey: .itunesEpisode)
        itunesExplicit = try c.decodeIfPresent(Bool.self, forKey: .itunesExplicit)
        itunesImageURL = try c.decodeIfPresent(URL.self, forKey: .itunesImageURL)
        // The terms decide: a detail whose term disagrees with them gives way to the bare term.
        if !details.map(\.term).elementsEqual(terms) { categories = terms }
    }

    /// Encodes what the synthesized conformance encoded, in the same order (`link` as a `URL`, `categories` as the
    /// terms of `categoryDetails`).
    /// - Parameter encoder: The encoder.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(guidIsPermaLink, forKey: .guidIsPermaLink)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(link, forKey: .link)
        try c.encode(links, forKey: .links)
        try c.encodeIfPresent(summary, forKey: .summary)
        try c.encodeIfPresent(content, forKey: .content)
        try c.encodeIfPresent(contentType, forKey: .contentType)
        try c.encodeIfPresent(published, forKey: .published)
        try c.encodeIfPresent(updated, forKey: .updated)
        try c.encode(authors, forKey: .authors)
        try c.encode(categories, forKey: .categories)
        try c.encode(categoryDetails, forKey: .categoryDetails)
        try c.encode(enclosures, forKey: .enclosures)
        try c.encode(media, forKey: .media)
        try c.encode(thumbnails, forKey: .thumbnails)
        try c.encodeIfPresent(commentsURL, forKey: .commentsURL)
        try c.encodeIfPresent(itunesDuration, forKey: .itunesDuration)
        try c.encodeIfPresent(itunesEpisode, forKey: .itunesEpisode)
        try c.encodeIfPresent(itunesExplicit, forKey: .itunesExplicit)
        try c.encodeIfPresent(itunesImageURL, forKey: .itunesImageURL)
    }
}
