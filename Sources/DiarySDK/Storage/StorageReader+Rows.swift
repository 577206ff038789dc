import Foundation

/// Typed reads of one row, over ``StorageReader/record(_:)``.
@_spi(Storage)
extension StorageReader {
    /// A row of a table by its key.
    public func row<Row>(_ table: StorageTable<Row>, _ key: RecordKey) async throws -> Row? {
        try await record(key).flatMap(table.unwrap)
    }

    /// The one row with a value in a unique index.
    public func row<Row, Value>(_ index: StorageIndex<Row, Value>, equalTo value: Value) async throws -> Row? {
        try await rows(index, equalTo: value).first
    }

    /// Whether a row with a key exists.
    public func contains(_ key: RecordKey) async throws -> Bool {
        try await record(key) != nil
    }

    /// The `user` row with a key, if there is one.
    public func user(_ id: User.ID) async throws -> User? { try await row(StorageSchema.users, .user(id)) }
    /// The `credential` row with a key, if there is one.
    public func credential(_ id: User.ID) async throws -> CredentialRecord? {
        try await row(StorageSchema.credentials, .credential(id))
    }
    /// The `session` row with a key, if there is one.
    public func session(_ tokenHash: String) async throws -> SessionRecord? {
        try await row(StorageSchema.sessions, .session(tokenHash))
    }
    /// The `attachment` row with a key, if there is one.
    public func attachment(_ id: Attachment.ID) async throws -> Attachment? {
        try await row(StorageSchema.attachments, .attachment(id))
    }
    /// The `diary` row with a key, if there is one.
    public func diary(_ id: Diary.ID) async throws -> Diary? { try await row(StorageSchema.diaries, .diary(id)) }
    /// The `book` row with a key, if there is one.
    public func book(_ id: DiaryBook.ID) async throws -> DiaryBook? { try await row(StorageSchema.books, .book(id)) }
    /// The `membership` row with a key, if there is one.
    public func membership(_ bookID: DiaryBook.ID, _ userID: User.ID) async throws -> MembershipRecord? {
        try await row(StorageSchema.memberships, .membership(bookID, userID))
    }
    /// The `post` row with a key, if there is one.
    public func post(_ id: Post.ID) async throws -> PostRecord? { try await row(StorageSchema.posts, .post(id)) }
    /// The `comment` row with a key, if there is one.
    public func comment(_ id: Comment.ID) async throws -> CommentRecord? {
        try await row(StorageSchema.comments, .comment(id))
    }
    /// The `like` row with a key, if there is one.
    public func like(_ userID: User.ID, _ postID: Post.ID) async throws -> LikeRecord? {
        try await row(StorageSchema.likes, .like(userID, postID))
    }
    /// The `notification` row with a key, if there is one.
    public func notification(_ id: DiaryNotification.ID) async throws -> NotificationRecord? {
        try await row(StorageSchema.notifications, .notification(id))
    }
    /// The `blog` row with a key, if there is one.
    public func blog(_ id: Blog.ID) async throws -> Blog? { try await row(StorageSchema.blogs, .blog(id)) }
}

@_spi(Storage)
extension StoreRecord {
    /// The table the row belongs to.
    public var kind: RecordKind { key.kind }
}

@_spi(Storage)
extension RecordKey {
    /// The table the row belongs to.
    public var kind: RecordKind {
        switch self {
        case .user: .user
        case .credential: .credential
        case .session: .session
        case .device: .device
        case .diary: .diary
        case .book: .book
        case .membership: .membership
        case .comment: .comment
        case .post: .post
        case .like: .like
        case .follow: .follow
        case .block: .block
        case .anonymousBlock: .anonymousBlock
        case .report: .report
        case .notification: .notification
        case .blog: .blog
        case .attachment: .attachment
        case .retiredID: .retiredID
        case .outbox: .outbox
        }
    }
}
