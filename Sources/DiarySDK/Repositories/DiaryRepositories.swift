import Foundation

/// Every repository of one backend, bundled: what an app holds on to.
///
/// Get one from a backend and keep using the protocols, so the backend can change without touching screens:
///
/// ```swift
/// let backend = try FileStoreBackend(configuration: .init(directory: appSupport))
/// let sdk = backend.repositories
/// let me = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
/// let entry = try await sdk.diaries.write(DiaryDraft(title: "Day one", body: "Hello", mood: .happy))
/// ```
///
/// In a unit test, hand the screen an `InMemoryBackend`'s repositories instead. To write a backend of your own,
/// fill this struct with your implementations and run the conformance suite on it.
public struct DiaryRepositories: Sendable {
    /// Accounts and the session.
    public var accounts: any AccountRepository
    /// Profiles.
    public var users: any UserRepository
    /// Uploaded images.
    public var attachments: any AttachmentRepository
    /// Diary entries, calendar and streaks.
    public var diaries: any DiaryRepository
    /// Shared diary books.
    public var books: any BookRepository
    /// Community posts and likes.
    public var posts: any PostRepository
    /// Comments and replies.
    public var comments: any CommentRepository
    /// Follows, blocks and reports.
    public var social: any SocialRepository
    /// Notifications.
    public var notifications: any NotificationRepository
    /// Blogs for import.
    public var blogs: any BlogRepository
    /// Live changes.
    public var changes: any ChangeFeed

    /// Bundles repositories.
    public init(
        accounts: any AccountRepository, users: any UserRepository, attachments: any AttachmentRepository,
        diaries: any DiaryRepository, books: any BookRepository, posts: any PostRepository,
        comments: any CommentRepository, social: any SocialRepository, notifications: any NotificationRepository,
        blogs: any BlogRepository, changes: any ChangeFeed
    ) {
        self.accounts = accounts
        self.users = users
        self.attachments = attachments
        self.diaries = diaries
        self.books = books
        self.posts = posts
        self.comments = comments
        self.social = social
        self.notifications = notifications
        self.blogs = blogs
        self.changes = changes
    }
}
