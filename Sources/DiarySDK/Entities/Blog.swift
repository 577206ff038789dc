import Foundation

/// A user's blog, registered by its feed so that new posts are imported (TLog).
public struct Blog: Identifiable, Hashable, Sendable, Codable {
    /// A blog's identifier.
    public typealias ID = EntityID<Blog>

    /// The identifier.
    public var id: ID
    /// Whose blog it is.
    public var ownerID: User.ID
    /// The blog's title.
    public var title: String
    /// The blog's home page.
    public var siteURL: URL
    /// The RSS, Atom or JSON feed.
    public var feedURL: URL
    /// The user's main blog; at most one blog per user is primary.
    public var isPrimary: Bool
    /// What the last sync left behind.
    public var sync: BlogSyncState
    /// When it was registered.
    public var createdAt: Date

    /// Creates a blog value.
    public init(
        id: ID, ownerID: User.ID, title: String, siteURL: URL, feedURL: URL, isPrimary: Bool,
        sync: BlogSyncState = .init(), createdAt: Date
    ) {
        self.id = id
        self.ownerID = ownerID
        self.title = title
        self.siteURL = siteURL
        self.feedURL = feedURL
        self.isPrimary = isPrimary
        self.sync = sync
        self.createdAt = createdAt
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case ownerID = "ownerID"
        case title = "title"
        case siteURL = "siteURL"
        case feedURL = "feedURL"
        case isPrimary = "isPrimary"
        case sync = "sync"
        case createdAt = "createdAt"
    }
}

/// A blog's sync state: when it was last fetched and the validators for the next conditional GET.
public struct BlogSyncState: Hashable, Sendable, Codable {
    /// When the feed was last fetched successfully.
    public var lastSyncedAt: Date?
    /// The `ETag` the server sent.
    public var etag: String?
    /// The `Last-Modified` the server sent.
    public var lastModified: String?
    /// The last sync's error message, if it failed.
    public var lastError: String?

    /// Creates a sync state.
    public init(lastSyncedAt: Date? = nil, etag: String? = nil, lastModified: String? = nil, lastError: String? = nil) {
        self.lastSyncedAt = lastSyncedAt
        self.etag = etag
        self.lastModified = lastModified
        self.lastError = lastError
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case lastSyncedAt = "lastSyncedAt"
        case etag = "etag"
        case lastModified = "lastModified"
        case lastError = "lastError"
    }
}

/// What a user registers: a blog's feed, title and home page.
public struct BlogDraft: Hashable, Sendable, Codable {
    /// The title.
    public var title: String
    /// The home page.
    public var siteURL: URL
    /// The feed.
    public var feedURL: URL
    /// Make it the primary blog.
    public var isPrimary: Bool

    /// Creates a draft.
    public init(title: String, siteURL: URL, feedURL: URL, isPrimary: Bool = false) {
        self.title = title
        self.siteURL = siteURL
        self.feedURL = feedURL
        self.isPrimary = isPrimary
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case title = "title"
        case siteURL = "siteURL"
        case feedURL = "feedURL"
        case isPrimary = "isPrimary"
    }
}

/// Changes to a blog: `nil` fields are left as they are.
public struct BlogEdit: Hashable, Sendable, Codable {
    /// A new title.
    public var title: String?
    /// A new home page.
    public var siteURL: URL?
    /// A new feed address.
    public var feedURL: URL?

    /// Creates an edit.
    public init(title: String? = nil, siteURL: URL? = nil, feedURL: URL? = nil) {
        self.title = title
        self.siteURL = siteURL
        self.feedURL = feedURL
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case title = "title"
        case siteURL = "siteURL"
        case feedURL = "feedURL"
    }
}

/// One feed item to import as a post of the blog's owner.
@_spi(Engine)
public struct ImportedItem: Hashable, Sendable, Codable {
    /// The item's GUID / id.
    public var guid: String?
    /// The item's address.
    public var url: URL?
    /// The title.
    public var title: String
    /// The text (HTML as the feed gave it).
    public var body: String
    /// Categories, as tags.
    public var tags: [String]
    /// When the blog published it; decides the calendar day.
    public var publishedAt: Date

    /// Creates an item.
    public init(guid: String?, url: URL?, title: String, body: String, tags: [String], publishedAt: Date) {
        self.guid = guid
        self.url = url
        self.title = title
        self.body = body
        self.tags = tags
        self.publishedAt = publishedAt
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case guid = "guid"
        case url = "url"
        case title = "title"
        case body = "body"
        case tags = "tags"
        case publishedAt = "publishedAt"
    }
}

@_spi(Engine)
extension ImportedItem {
    /// The most items ``BlogRepository/importItems(_:into:)`` takes in one call (one request over HTTP).
    public static let maximumBatchSize = 100

    /// Checks a batch's size.
    /// - Parameter items: The batch.
    /// - Throws: `.invalidInput` on `items` when it holds more than ``maximumBatchSize`` items.
    public static func checkBatch(_ items: [ImportedItem]) throws {
        guard items.count <= maximumBatchSize else {
            throw DiaryError.invalid(
                "items", .tooMany, "a batch holds at most \(maximumBatchSize) items, not \(items.count)")
        }
    }
}

/// What importing one item of a batch did: its outcome, or why that item alone was refused.
@_spi(Engine)
public struct ImportItemResult: Hashable, Sendable, Codable {
    /// Why one item was refused.
    public struct Failure: Hashable, Sendable, Codable {
        /// The error's code, as ``DiaryError/code``.
        public var code: DiaryError.Code
        /// What was wrong.
        public var message: String
        /// The field concerned, if any.
        public var field: String?

        /// Creates a failure.
        public init(code: DiaryError.Code, message: String, field: String? = nil) {
            self.code = code
            self.message = message
            self.field = field
        }

        /// The JSON member names, spelled out so that renaming a property never changes the wire format.
        private enum CodingKeys: String, CodingKey {
            case code = "code"
            case message = "message"
            case field = "field"
        }
    }

    /// What importing did, when the item was imported.
    public var outcome: ImportOutcome?
    /// Why the item was refused, when it was.
    public var failure: Failure?

    /// An imported item's result.
    /// - Parameter outcome: What importing did.
    public init(outcome: ImportOutcome) {
        self.outcome = outcome
    }

    /// A refused item's result.
    /// - Parameter error: Why.
    public init(failure error: DiaryError) {
        failure = Failure(code: error.code, message: error.message, field: error.field)
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case outcome = "outcome"
        case failure = "failure"
    }
}

/// What importing one item did.
@_spi(Engine)
public enum ImportOutcome: String, Hashable, Sendable, Codable {
    /// A new post was created.
    case created
    /// An existing post's content changed and was updated.
    case updated
    /// The post already existed unchanged.
    case unchanged
}
