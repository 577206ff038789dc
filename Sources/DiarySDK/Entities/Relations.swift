import Foundation

/// What a report is about.
public enum ReportTarget: Hashable, Sendable, Codable {
    /// A user.
    case user(User.ID)
    /// A post.
    case post(Post.ID)
    /// A comment.
    case comment(Comment.ID)
    /// A diary entry.
    case diary(Diary.ID)
}

/// A post or comment whose author a user can block from the content itself (``SocialRepository/blockAuthor(of:)``),
/// which works for anonymous content without saying who wrote it.
public enum AuthoredContent: Hashable, Sendable, Codable {
    /// A post.
    case post(Post.ID)
    /// A comment or reply.
    case comment(Comment.ID)
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
}
