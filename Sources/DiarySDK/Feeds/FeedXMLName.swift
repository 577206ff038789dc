/// The element names the RSS mapper dispatches on, matched on the ASCII-lowercased local name
/// (``FeedText/lowercasedName(_:)``). The tree classifies each distinct name once, when it first appears, so that
/// mapping an element compares two small integers instead of lowering and comparing strings.
enum FeedXMLName: Sendable {
    case other
    case author, body, category, comments, created, creator, date, description, div, duration, enclosure, encoded, episode
    case explicit, fullitem, guid, image, issued, keywords, language, lastbuilddate, link, managingeditor, modified
    case pubdate, published, subject, subtitle, summary, tags, title, updated

    /// The kind of a local name, compared after ASCII lowercasing as the mapper always did.
    init(localName: String) {
        self = FeedXMLName(lowercased: FeedText.lowercasedName(localName)) ?? .other
    }

    private init?(lowercased name: String) {
        switch name {
        case "author": self = .author
        case "body": self = .body
        case "category": self = .category
        case "comments": self = .comments
        case "created": self = .created
        case "creator": self = .creator
        case "date": self = .date
        case "description": self = .description
        case "div": self = .div
        case "duration": self = .duration
        case "enclosure": self = .enclosure
        case "encoded": self = .encoded
        case "episode": self = .episode
        case "explicit": self = .explicit
        case "fullitem": self = .fullitem
        case "guid": self = .guid
        case "image": self = .image
        case "issued": self = .issued
        case "keywords": self = .keywords
        case "language": self = .language
        case "lastbuilddate": self = .lastbuilddate
        case "link": self = .link
        case "managingeditor": self = .managingeditor
        case "modified": self = .modified
        case "pubdate": self = .pubdate
        case "published": self = .published
        case "subject": self = .subject
        case "subtitle": self = .subtitle
        case "summary": self = .summary
        case "tags": self = .tags
        case "title": self = .title
        case "updated": self = .updated
        default: return nil
        }
    }
}
