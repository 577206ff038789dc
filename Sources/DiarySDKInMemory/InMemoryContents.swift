import DiarySDK
import Foundation

/// A snapshot of what an ``InMemoryBackend`` holds, for assertions. Content is shown as its author sees it.
public struct InMemoryContents: Sendable {
    /// Every user, with email and settings.
    public var users: [User]
    /// Every diary entry, including hidden ones and deleted-entry traces.
    public var diaries: [Diary]
    /// Every book.
    public var books: [DiaryBook]
    /// Every post, with its author shown.
    public var posts: [Post]
    /// Every comment, with its author shown.
    public var comments: [Comment]
    /// Every like, as (user, post).
    public var likes: [(user: User.ID, post: Post.ID)]
    /// Every follow, as (follower, followee).
    public var follows: [(follower: User.ID, followee: User.ID)]
    /// Every block, as (blocker, blocked).
    public var blocks: [(blocker: User.ID, blocked: User.ID)]
    /// Every report.
    public var reports: [Report]
    /// Every notification.
    public var notifications: [DiaryNotification]
    /// Every blog.
    public var blogs: [Blog]
    /// Every attachment row.
    public var attachments: [Attachment]
    /// How many attachment files are stored.
    public var attachmentFiles: Int
    /// Every registered push token, by user.
    public var deviceTokens: [User.ID: [DeviceToken]]

    init(database db: DiaryDatabase, attachmentFiles: Int) {
        users = db.users.values.sorted { $0.createdAt < $1.createdAt }
        diaries = db.diaries.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        books = db.books.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        posts = db.posts.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
            .map { AccessPolicy.view(of: $0, viewer: $0.authorID, in: db) }
        comments = db.comments.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
            .map { AccessPolicy.view(of: $0, viewer: $0.authorID, in: db) }
        likes = db.likes.values.flatMap(\.values).sorted { $0.createdAt < $1.createdAt }.map { ($0.userID, $0.postID) }
        follows = db.follows.values.flatMap(\.values).sorted { $0.createdAt < $1.createdAt }.map { ($0.from, $0.to) }
        blocks = db.blocks.values.flatMap(\.values).sorted { $0.createdAt < $1.createdAt }.map { ($0.from, $0.to) }
        reports = db.reports.values.sorted { $0.createdAt < $1.createdAt }
        notifications = db.notifications.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map {
            DiaryNotification(
                id: $0.id, recipientID: $0.recipientID, kind: $0.kind,
                actor: $0.actorID.flatMap { AccessPolicy.summary(of: $0, in: db) }, bookID: $0.bookID,
                diaryID: $0.diaryID, postID: $0.postID, commentID: $0.commentID, createdAt: $0.createdAt,
                isRead: $0.isRead)
        }
        blogs = db.blogs.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        attachments = db.attachments.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        self.attachmentFiles = attachmentFiles
        deviceTokens = db.devices.mapValues { $0.values.sorted { $0.registeredAt < $1.registeredAt }.map(\.device) }
    }
}
