import Foundation

/// A community post.
///
/// ``author`` is `nil` when the post is anonymous and the viewer is not its author. Counts are as the viewer sees
/// them: likes by users the viewer blocked are not counted.
public struct Post: Identifiable, Hashable, Sendable, Codable {
    /// A post's identifier.
    public typealias ID = EntityID<Post>

    /// The identifier.
    public var id: ID
    /// Who wrote it; `nil` for an anonymous post seen by anyone else.
    public var author: AuthorSummary?
    /// Whether the signed-in user wrote it.
    public var isMine: Bool
    /// Whether it was posted anonymously.
    public var isAnonymous: Bool
    /// The title.
    public var title: String
    /// The text.
    public var body: String
    /// Tags, without `#`.
    public var tags: [String]
    /// Up to four images.
    public var images: [ImageReference]
    /// Where it came from.
    public var source: PostSource
    /// The calendar day it counts for in its author's calendar and streak.
    public var day: LocalDate
    /// How many likes the viewer can see.
    public var likeCount: Int
    /// How many comments the viewer can see.
    public var commentCount: Int
    /// Whether the signed-in user likes it.
    public var isLiked: Bool
    /// When it was published (an imported post: when the blog published it).
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date

    /// Creates a post value.
    public init(
        id: ID, author: AuthorSummary?, isMine: Bool, isAnonymous: Bool, title: String, body: String, tags: [String],
        images: [ImageReference], source: PostSource, day: LocalDate, likeCount: Int, commentCount: Int, isLiked: Bool,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.author = author
        self.isMine = isMine
        self.isAnonymous = isAnonymous
        self.title = title
        self.body = body
        self.tags = tags
        self.images = images
        self.source = source
        self.day = day
        self.likeCount = likeCount
        self.commentCount = commentCount
        self.isLiked = isLiked
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case author = "author"
        case isMine = "isMine"
        case isAnonymous = "isAnonymous"
        case title = "title"
        case body = "body"
        case tags = "tags"
        case images = "images"
        case source = "source"
        case day = "day"
        case likeCount = "likeCount"
        case commentCount = "commentCount"
        case isLiked = "isLiked"
        case createdAt = "createdAt"
        case updatedAt = "updatedAt"
    }
}

/// Where a post came from.
///
/// On the wire: `{"type": "original"}`, `{"type": "diary", "id": "…"}` or
/// `{"type": "blog", "blogID": "…", "guid": "…", "url": "…"}` (the ``BlogImport``'s members beside `type`).
public enum PostSource: Hashable, Sendable {
    /// Written in the app.
    case original
    /// Shared from one of the author's diary entries.
    case diary(Diary.ID)
    /// Imported from the author's blog feed.
    case blog(BlogImport)
}

extension PostSource: Codable {
    private enum CodingKeys: String, CodingKey {
        case type = "type"
        case id = "id"
    }

    private enum Kind: String, CaseIterable {
        case original = "original"
        case diary = "diary"
        case blog = "blog"
    }

    /// Decodes the object described above.
    /// - Throws: `DecodingError` when `type` is missing or names no kind of source, or the kind's members are
    ///   missing or invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try WireKind.decode(Kind.self, of: PostSource.self, from: container, forKey: .type) {
        case .original: self = .original
        case .diary: self = .diary(try container.decode(Diary.ID.self, forKey: .id))
        case .blog: self = .blog(try BlogImport(from: decoder))
        }
    }

    /// Encodes the object described above.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .original:
            try container.encode(Kind.original.rawValue, forKey: .type)
        case .diary(let id):
            try container.encode(Kind.diary.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        case .blog(let source):
            try container.encode(Kind.blog.rawValue, forKey: .type)
            try source.encode(to: encoder)
        }
    }
}

/// Where an imported post came from: enough to find it again on the next sync.
public struct BlogImport: Hashable, Sendable, Codable {
    /// The blog.
    public var blogID: Blog.ID
    /// The feed item's GUID / Atom id, if it had one.
    public var guid: String?
    /// The item's original address.
    public var url: URL?

    /// Creates an import source.
    public init(blogID: Blog.ID, guid: String?, url: URL?) {
        self.blogID = blogID
        self.guid = guid
        self.url = url
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case blogID = "blogID"
        case guid = "guid"
        case url = "url"
    }
}

/// What a user writes to publish a post.
public struct PostDraft: Hashable, Sendable, Codable {
    /// The id to create it with, chosen by the client (a UUID it generated, so that what is written offline keeps
    /// its id when it reaches the server), or `nil` for a new one. An id that is or was in use is refused with
    /// ``DiaryError/Code/conflict`` (``DiaryError/Reason/alreadyUsed``).
    public var id: Post.ID?
    /// The title; it must not be blank.
    public var title: String
    /// The text; it must not be blank.
    public var body: String
    /// Tags.
    public var tags: [String]
    /// Up to four images uploaded by the author.
    public var images: [ImageReference]
    /// Publish without revealing the author.
    public var isAnonymous: Bool

    /// Creates a draft.
    public init(
        id: Post.ID? = nil, title: String, body: String, tags: [String] = [], images: [ImageReference] = [],
        isAnonymous: Bool = false
    ) {
        self.id = id
        self.title = title
        self.body = body
        self.tags = tags
        self.images = images
        self.isAnonymous = isAnonymous
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case title = "title"
        case body = "body"
        case tags = "tags"
        case images = "images"
        case isAnonymous = "isAnonymous"
    }
}

/// Changes to a post: `nil` fields are left as they are.
public struct PostEdit: Hashable, Sendable, Codable {
    /// A new title.
    public var title: String?
    /// A new body.
    public var body: String?
    /// New tags.
    public var tags: [String]?
    /// New images.
    public var images: [ImageReference]?

    /// Creates an edit.
    public init(title: String? = nil, body: String? = nil, tags: [String]? = nil, images: [ImageReference]? = nil) {
        self.title = title
        self.body = body
        self.tags = tags
        self.images = images
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case title = "title"
        case body = "body"
        case tags = "tags"
        case images = "images"
    }
}

/// A community search: words in the title or body, and tags.
public struct PostSearch: Hashable, Sendable, Codable {
    /// Words that must all appear in the title, body or tags (case- and diacritic-insensitive).
    public var text: String
    /// Tags the post must all carry.
    public var tags: [String]

    /// Creates a search; at least one of `text` and `tags` must say something.
    public init(text: String = "", tags: [String] = []) {
        self.text = text
        self.tags = tags
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case text = "text"
        case tags = "tags"
    }
}
