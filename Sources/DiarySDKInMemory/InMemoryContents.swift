@_spi(Storage) import DiarySDK
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

    init(database db: LocalDatabase, attachmentFiles: Int) async throws {
        var users: [User] = [], diaries: [Diary] = [], books: [DiaryBook] = [], posts: [PostRecord] = []
        var comments: [CommentRecord] = [], likes: [LikeRecord] = [], follows: [EdgeRecord] = []
        var blocks: [EdgeRecord] = [], reports: [Report] = [], notifications: [NotificationRecord] = []
        var blogs: [Blog] = [], attachments: [Attachment] = [], devices: [DeviceRecord] = []
        for record in db.allRecords {
            switch record {
            case .user(let row): users.append(row)
            case .diary(let row): diaries.append(row)
            case .book(let row): books.append(row)
            case .post(let row): posts.append(row)
            case .comment(let row): comments.append(row)
            case .like(let row): likes.append(row)
            case .follow(let row): follows.append(row)
            case .block(let row): blocks.append(row)
            case .report(let row): reports.append(row)
            case .notification(let row): notifications.append(row)
            case .blog(let row): blogs.append(row)
            case .attachment(let row): attachments.append(row)
            case .device(let row): devices.append(row)
            case .credential, .session, .membership, .anonymousBlock, .retiredID, .outbox: break
            }
        }
        let reader = LocalSnapshot(db)
        self.users = users.sorted { $0.createdAt < $1.createdAt }
        self.diaries = diaries.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        self.books = books.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        var postViews: [Post] = []
        for post in posts.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            let author = try await Viewer.load(post.authorID, in: reader)
            postViews.append(try await AccessPolicy.view(of: post, viewer: author, in: reader))
        }
        self.posts = postViews
        var commentViews: [Comment] = []
        for comment in comments.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            let author = try await Viewer.load(comment.authorID, in: reader)
            commentViews.append(try await AccessPolicy.view(of: comment, viewer: author, in: reader))
        }
        self.comments = commentViews
        self.likes = likes.sorted { $0.createdAt < $1.createdAt }.map { ($0.userID, $0.postID) }
        self.follows = follows.sorted { $0.createdAt < $1.createdAt }.map { ($0.from, $0.to) }
        self.blocks = blocks.sorted { $0.createdAt < $1.createdAt }.map { ($0.from, $0.to) }
        self.reports = reports.sorted { $0.createdAt < $1.createdAt }
        var notificationViews: [DiaryNotification] = []
        for record in notifications.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            var actor: AuthorSummary?
            if let actorID = record.actorID { actor = try await AccessPolicy.summary(of: actorID, in: reader) }
            notificationViews.append(
                DiaryNotification(
                    id: record.id, recipientID: record.recipientID, kind: record.kind, actor: actor,
                    bookID: record.bookID, diaryID: record.diaryID, postID: record.postID, commentID: record.commentID,
                    createdAt: record.createdAt, isRead: record.isRead))
        }
        self.notifications = notificationViews
        self.blogs = blogs.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        self.attachments = attachments.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        self.attachmentFiles = attachmentFiles
        self.deviceTokens = Dictionary(grouping: devices, by: \.userID).mapValues {
            $0.sorted { $0.registeredAt < $1.registeredAt }.map(\.device)
        }
    }
}
