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
}

/// Where a post came from.
///
/// On the wire: `{"original": {}}`, `{"diary": {"_0": id}}` or `{"blog": {"_0": BlogImport}}` (the shape Swift
/// synthesises for such an enum; written by hand because every post in every page carries one and the synthesised
/// decoder lists all keys and opens a nested container even for `original`).
public enum PostSource: Hashable, Sendable, Codable {
    /// Written in the app.
    case original
    /// Shared from one of the author's diary entries.
    case diary(Diary.ID)
    /// Imported from the author's blog feed.
    case blog(BlogImport)

    private enum CodingKeys: String, CodingKey {
        case original, diary, blog
    }

    private enum ValueKeys: String, CodingKey {
        case value = "_0"
    }

    /// Decodes the one-key object; a key other than the three is ignored, as by the synthesised decoder, and the
    /// same errors are thrown.
    /// - Throws: `DecodingError.typeMismatch` unless exactly one of `original`, `diary`, `blog` is present, and the
    ///   nested value's errors.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let present = [CodingKeys.original, .diary, .blog].filter(container.contains)
        guard present.count == 1 else {
            throw DecodingError.typeMismatch(
                PostSource.self,
                .init(codingPath: container.codingPath, debugDescription: "Invalid number of keys found, expected one."))
        }
        switch present[0] {
        case .original:
            // `{"original": {}}`: the value must be an object, as the synthesised decoder requires.
            _ = try container.nestedContainer(keyedBy: ValueKeys.self, forKey: .original)
            self = .original
        case .diary:
            let value = try container.nestedContainer(keyedBy: ValueKeys.self, forKey: .diary)
            self = .diary(try value.decode(Diary.ID.self, forKey: .value))
        case .blog:
            let value = try container.nestedContainer(keyedBy: ValueKeys.self, forKey: .blog)
            self = .blog(try value.decode(BlogImport.self, forKey: .value))
        }
    }

    /// Encodes the one-key object described above.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .original:
            _ = container.nestedContainer(keyedBy: ValueKeys.self, forKey: .original)
        case .diary(let id):
            var value = container.nestedContainer(keyedBy: ValueKeys.self, forKey: .diary)
            try value.encode(id, forKey: .value)
        case .blog(let source):
            var value = container.nestedContainer(keyedBy: ValueKeys.self, forKey: .blog)
            try value.encode(source, forKey: .value)
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
}

/// What a user writes to publish a post.
public struct PostDraft: Hashable, Sendable, Codable {
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
        title: String, body: String, tags: [String] = [], images: [ImageReference] = [], isAnonymous: Bool = false
    ) {
        self.title = title
        self.body = body
        self.tags = tags
        self.images = images
        self.isAnonymous = isAnonymous
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
}
