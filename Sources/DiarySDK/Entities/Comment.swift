import Foundation

/// A comment on a diary entry or a post; a reply is a comment whose ``parentID`` is set (one level deep).
///
/// ``author`` is `nil` when the comment is anonymous and the viewer is not its author: nothing in the value
/// says who wrote it.
public struct Comment: Identifiable, Hashable, Sendable, Codable {
    /// A comment's identifier.
    public typealias ID = EntityID<Comment>

    /// The identifier.
    public var id: ID
    /// What it comments on.
    public var target: CommentTarget
    /// The comment it replies to.
    public var parentID: ID?
    /// Who wrote it; `nil` for an anonymous comment seen by anyone else.
    public var author: AuthorSummary?
    /// Whether the signed-in user wrote it.
    public var isMine: Bool
    /// Whether it was posted anonymously.
    public var isAnonymous: Bool
    /// The text.
    public var body: String
    /// A mood, for mood comments.
    public var mood: Mood?
    /// When it was written.
    public var createdAt: Date
    /// When it was last edited.
    public var updatedAt: Date

    /// Creates a comment value.
    public init(
        id: ID, target: CommentTarget, parentID: ID? = nil, author: AuthorSummary?, isMine: Bool, isAnonymous: Bool,
        body: String, mood: Mood? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.target = target
        self.parentID = parentID
        self.author = author
        self.isMine = isMine
        self.isAnonymous = isAnonymous
        self.body = body
        self.mood = mood
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case target = "target"
        case parentID = "parentID"
        case author = "author"
        case isMine = "isMine"
        case isAnonymous = "isAnonymous"
        case body = "body"
        case mood = "mood"
        case createdAt = "createdAt"
        case updatedAt = "updatedAt"
    }
}

/// What a comment is attached to.
///
/// On the wire: `{"type": "diary", "id": "…"}` or `{"type": "post", "id": "…"}`.
public enum CommentTarget: Hashable, Sendable {
    /// A diary entry.
    case diary(Diary.ID)
    /// A community post.
    case post(Post.ID)
}

extension CommentTarget: Codable {
    private enum CodingKeys: String, CodingKey {
        case type = "type"
        case id = "id"
    }

    private enum Kind: String, CaseIterable {
        case diary = "diary"
        case post = "post"
    }

    /// Decodes `{"type", "id"}`.
    /// - Throws: `DecodingError` when `type` is missing or names no kind of target, or the id is missing or invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try WireKind.decode(Kind.self, of: CommentTarget.self, from: container, forKey: .type) {
        case .diary: self = .diary(try container.decode(Diary.ID.self, forKey: .id))
        case .post: self = .post(try container.decode(Post.ID.self, forKey: .id))
        }
    }

    /// Encodes `{"type", "id"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .diary(let id):
            try container.encode(Kind.diary.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        case .post(let id):
            try container.encode(Kind.post.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        }
    }
}

/// A top-level comment with its replies, oldest first.
public struct CommentThread: Hashable, Sendable, Codable, Identifiable {
    /// The top-level comment.
    public var comment: Comment
    /// Its replies.
    public var replies: [Comment]

    /// The thread's id is its top-level comment's.
    public var id: Comment.ID { comment.id }

    /// Creates a thread.
    public init(comment: Comment, replies: [Comment]) {
        self.comment = comment
        self.replies = replies
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case comment = "comment"
        case replies = "replies"
    }
}

/// What a user writes to comment.
public struct CommentDraft: Hashable, Sendable, Codable {
    /// The id to create it with, chosen by the client (a UUID it generated, so that what is written offline keeps
    /// its id when it reaches the server), or `nil` for a new one. An id that is or was in use is refused with
    /// ``DiaryError/Code/conflict`` (``DiaryError/Reason/alreadyUsed``).
    public var id: Comment.ID?
    /// What to comment on.
    public var target: CommentTarget
    /// The comment to reply to; it must be a top-level comment on the same target.
    public var parentID: Comment.ID?
    /// The text; it must not be blank.
    public var body: String
    /// A mood for a mood comment.
    public var mood: Mood?
    /// Post anonymously.
    public var isAnonymous: Bool

    /// Creates a draft.
    public init(
        id: Comment.ID? = nil, target: CommentTarget, parentID: Comment.ID? = nil, body: String, mood: Mood? = nil,
        isAnonymous: Bool = false
    ) {
        self.id = id
        self.target = target
        self.parentID = parentID
        self.body = body
        self.mood = mood
        self.isAnonymous = isAnonymous
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case target = "target"
        case parentID = "parentID"
        case body = "body"
        case mood = "mood"
        case isAnonymous = "isAnonymous"
    }
}
