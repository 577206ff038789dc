import Foundation

/// The kinds of notification, each of which a user can turn off in ``UserSettings/notifications``.
public enum NotificationKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// Someone wrote an entry in a book I am in.
    case newEntryInBook
    /// Someone joined a book I am in.
    case newMember
    /// It is my turn to write in a book.
    case yourTurn
    /// Someone nudged me to write my turn.
    case nudge
    /// Someone commented on my entry.
    case commentOnEntry
    /// Someone commented on my post.
    case commentOnPost
    /// Someone replied to my comment.
    case replyToComment
}

/// A notification for one user.
public struct DiaryNotification: Identifiable, Hashable, Sendable, Codable {
    /// A notification's identifier.
    public typealias ID = EntityID<DiaryNotification>

    /// The identifier.
    public var id: ID
    /// Who receives it.
    public var recipientID: User.ID
    /// What happened.
    public var kind: NotificationKind
    /// Who did it; `nil` when they acted anonymously, or when nobody did (a turn that passed on because the writer
    /// whose turn it was left the book).
    public var actor: AuthorSummary?
    /// The book concerned.
    public var bookID: DiaryBook.ID?
    /// The entry concerned.
    public var diaryID: Diary.ID?
    /// The post concerned.
    public var postID: Post.ID?
    /// The comment concerned.
    public var commentID: Comment.ID?
    /// When it happened.
    public var createdAt: Date
    /// Whether the recipient has read it.
    public var isRead: Bool

    /// Creates a notification value.
    public init(
        id: ID, recipientID: User.ID, kind: NotificationKind, actor: AuthorSummary?, bookID: DiaryBook.ID? = nil,
        diaryID: Diary.ID? = nil, postID: Post.ID? = nil, commentID: Comment.ID? = nil, createdAt: Date,
        isRead: Bool = false
    ) {
        self.id = id
        self.recipientID = recipientID
        self.kind = kind
        self.actor = actor
        self.bookID = bookID
        self.diaryID = diaryID
        self.postID = postID
        self.commentID = commentID
        self.createdAt = createdAt
        self.isRead = isRead
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case recipientID = "recipientID"
        case kind = "kind"
        case actor = "actor"
        case bookID = "bookID"
        case diaryID = "diaryID"
        case postID = "postID"
        case commentID = "commentID"
        case createdAt = "createdAt"
        case isRead = "isRead"
    }
}
