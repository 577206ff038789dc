import Foundation

/// What a report is about.
///
/// On the wire: `{"type": "user", "id": "…"}`, and likewise with `post`, `comment` or `diary`.
public enum ReportTarget: Hashable, Sendable {
    /// A user.
    case user(User.ID)
    /// A post.
    case post(Post.ID)
    /// A comment.
    case comment(Comment.ID)
    /// A diary entry.
    case diary(Diary.ID)
}

extension ReportTarget: Codable {
    private enum CodingKeys: String, CodingKey {
        case type = "type"
        case id = "id"
    }

    private enum Kind: String, CaseIterable {
        case user = "user"
        case post = "post"
        case comment = "comment"
        case diary = "diary"
    }

    /// Decodes `{"type", "id"}`.
    /// - Throws: `DecodingError` when `type` is missing or names no kind of target, or the id is missing or invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try WireKind.decode(Kind.self, of: ReportTarget.self, from: container, forKey: .type) {
        case .user: self = .user(try container.decode(User.ID.self, forKey: .id))
        case .post: self = .post(try container.decode(Post.ID.self, forKey: .id))
        case .comment: self = .comment(try container.decode(Comment.ID.self, forKey: .id))
        case .diary: self = .diary(try container.decode(Diary.ID.self, forKey: .id))
        }
    }

    /// Encodes `{"type", "id"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .user(let id):
            try container.encode(Kind.user.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        case .post(let id):
            try container.encode(Kind.post.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        case .comment(let id):
            try container.encode(Kind.comment.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        case .diary(let id):
            try container.encode(Kind.diary.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        }
    }
}

/// A post or comment whose author a user can block from the content itself (``SocialRepository/blockAuthor(of:)``),
/// which works for anonymous content without saying who wrote it.
///
/// On the wire: `{"type": "post", "id": "…"}` or `{"type": "comment", "id": "…"}`.
public enum AuthoredContent: Hashable, Sendable {
    /// A post.
    case post(Post.ID)
    /// A comment or reply.
    case comment(Comment.ID)
}

extension AuthoredContent: Codable {
    private enum CodingKeys: String, CodingKey {
        case type = "type"
        case id = "id"
    }

    private enum Kind: String, CaseIterable {
        case post = "post"
        case comment = "comment"
    }

    /// Decodes `{"type", "id"}`.
    /// - Throws: `DecodingError` when `type` is missing or names no kind of content, or the id is missing or invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try WireKind.decode(Kind.self, of: AuthoredContent.self, from: container, forKey: .type) {
        case .post: self = .post(try container.decode(Post.ID.self, forKey: .id))
        case .comment: self = .comment(try container.decode(Comment.ID.self, forKey: .id))
        }
    }

    /// Encodes `{"type", "id"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .post(let id):
            try container.encode(Kind.post.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        case .comment(let id):
            try container.encode(Kind.comment.rawValue, forKey: .type)
            try container.encode(id, forKey: .id)
        }
    }
}

/// Why something is reported.
public enum ReportReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// Spam or advertising.
    case spam
    /// Abuse or harassment.
    case abuse
    /// Sexual or violent content.
    case inappropriate
    /// Impersonation or a false identity.
    case impersonation
    /// Anything else (say what in the detail).
    case other
}

/// A report filed by a user, kept for moderators.
public struct Report: Identifiable, Hashable, Sendable, Codable {
    /// A report's identifier.
    public typealias ID = EntityID<Report>

    /// The identifier.
    public var id: ID
    /// Who filed it.
    public var reporterID: User.ID
    /// What it is about.
    public var target: ReportTarget
    /// Why.
    public var reason: ReportReason
    /// Free text from the reporter.
    public var detail: String
    /// When it was filed.
    public var createdAt: Date

    /// Creates a report value.
    public init(id: ID, reporterID: User.ID, target: ReportTarget, reason: ReportReason, detail: String, createdAt: Date) {
        self.id = id
        self.reporterID = reporterID
        self.target = target
        self.reason = reason
        self.detail = detail
        self.createdAt = createdAt
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case reporterID = "reporterID"
        case target = "target"
        case reason = "reason"
        case detail = "detail"
        case createdAt = "createdAt"
    }
}

/// How the signed-in user and another user are related.
public struct Relationship: Hashable, Sendable, Codable {
    /// The signed-in user follows them.
    public var isFollowing: Bool
    /// They follow the signed-in user.
    public var isFollowedBy: Bool
    /// The signed-in user blocked them.
    public var isBlocking: Bool

    /// Creates a relationship value.
    public init(isFollowing: Bool, isFollowedBy: Bool, isBlocking: Bool) {
        self.isFollowing = isFollowing
        self.isFollowedBy = isFollowedBy
        self.isBlocking = isBlocking
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case isFollowing = "isFollowing"
        case isFollowedBy = "isFollowedBy"
        case isBlocking = "isBlocking"
    }
}
