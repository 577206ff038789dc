import Foundation

/// Every table, index and listing the engine reads: declared once, here.
///
/// The stores in this package derive their indices from these declarations (``allIndices``, ``allListings``), so
/// adding an index is one declaration. A store outside the package (a SQL database) maps each ``StorageIndex/name``
/// and ``StorageListing/name`` to its own indexed query; docs/CustomStorage.md lists them with their SQL.
@_spi(Storage)
public enum StorageSchema {
    // MARK: Tables

    /// The `users` table.
    public static let users = StorageTable<User>(.user, wrap: StoreRecord.user) {
        if case .user(let row) = $0 { row } else { nil }
    }
    /// The `credentials` table.
    public static let credentials = StorageTable<CredentialRecord>(.credential, wrap: StoreRecord.credential) {
        if case .credential(let row) = $0 { row } else { nil }
    }
    /// The `sessions` table.
    public static let sessions = StorageTable<SessionRecord>(.session, wrap: StoreRecord.session) {
        if case .session(let row) = $0 { row } else { nil }
    }
    /// The `devices` table.
    public static let devices = StorageTable<DeviceRecord>(.device, wrap: StoreRecord.device) {
        if case .device(let row) = $0 { row } else { nil }
    }
    /// The `attachments` table.
    public static let attachments = StorageTable<Attachment>(.attachment, wrap: StoreRecord.attachment) {
        if case .attachment(let row) = $0 { row } else { nil }
    }
    /// The `diaries` table.
    public static let diaries = StorageTable<Diary>(.diary, wrap: StoreRecord.diary) {
        if case .diary(let row) = $0 { row } else { nil }
    }
    /// The `books` table.
    public static let books = StorageTable<DiaryBook>(.book, wrap: StoreRecord.book) {
        if case .book(let row) = $0 { row } else { nil }
    }
    /// The `memberships` table.
    public static let memberships = StorageTable<MembershipRecord>(.membership, wrap: StoreRecord.membership) {
        if case .membership(let row) = $0 { row } else { nil }
    }
    /// The `posts` table.
    public static let posts = StorageTable<PostRecord>(.post, wrap: StoreRecord.post) {
        if case .post(let row) = $0 { row } else { nil }
    }
    /// The `comments` table.
    public static let comments = StorageTable<CommentRecord>(.comment, wrap: StoreRecord.comment) {
        if case .comment(let row) = $0 { row } else { nil }
    }
    /// The `likes` table.
    public static let likes = StorageTable<LikeRecord>(.like, wrap: StoreRecord.like) {
        if case .like(let row) = $0 { row } else { nil }
    }
    /// The `follows` table.
    public static let follows = StorageTable<EdgeRecord>(.follow, wrap: StoreRecord.follow) {
        if case .follow(let row) = $0 { row } else { nil }
    }
    /// The `blocks` table.
    public static let blocks = StorageTable<EdgeRecord>(.block, wrap: StoreRecord.block) {
        if case .block(let row) = $0 { row } else { nil }
    }
    /// The `anonymousBlocks` table.
    public static let anonymousBlocks = StorageTable<EdgeRecord>(.anonymousBlock, wrap: StoreRecord.anonymousBlock) {
        if case .anonymousBlock(let row) = $0 { row } else { nil }
    }
    /// The `reports` table.
    public static let reports = StorageTable<Report>(.report, wrap: StoreRecord.report) {
        if case .report(let row) = $0 { row } else { nil }
    }
    /// The `notifications` table.
    public static let notifications = StorageTable<NotificationRecord>(.notification, wrap: StoreRecord.notification) {
        if case .notification(let row) = $0 { row } else { nil }
    }
    /// The `blogs` table.
    public static let blogs = StorageTable<Blog>(.blog, wrap: StoreRecord.blog) {
        if case .blog(let row) = $0 { row } else { nil }
    }

    /// The `retiredIDs` table: ids of deleted entries, posts and comments, which no create may take again.
    public static let retiredIDs = StorageTable<RetiredIDRecord>(.retiredID, wrap: StoreRecord.retiredID) {
        if case .retiredID(let row) = $0 { row } else { nil }
    }

    /// The `outbox` table: writes an offline backend made on the device and has not yet delivered.
    public static let outbox = StorageTable<OutboxRecord>(.outbox, wrap: StoreRecord.outbox) {
        if case .outbox(let row) = $0 { row } else { nil }
    }

    // MARK: Indices

    /// Users by ``Validation/nicknameKey(_:)``, so look-alike nicknames collide.
    public static let usersByNickname = StorageIndex<User, String>("users.nicknameKey", on: users, unique: true) {
        [Validation.nicknameKey($0.nickname)]
    }
    /// The `credentialsByEmail` index.
    public static let credentialsByEmail = StorageIndex<CredentialRecord, String>(
        "credentials.email", on: credentials, unique: true
    ) { [$0.email] }
    /// Credentials by linked external identity, `provider:subject`.
    public static let credentialsByExternalIdentity = StorageIndex<CredentialRecord, String>(
        "credentials.externalIdentities", on: credentials, unique: true
    ) { $0.externalIdentities }
    /// The `sessionsByUser` index.
    public static let sessionsByUser = StorageIndex<SessionRecord, User.ID>("sessions.userID", on: sessions) {
        [$0.userID]
    }
    /// The `devicesByUser` index.
    public static let devicesByUser = StorageIndex<DeviceRecord, User.ID>("devices.userID", on: devices) { [$0.userID] }
    /// The `devicesByToken` index.
    public static let devicesByToken = StorageIndex<DeviceRecord, String>("devices.token", on: devices) {
        [$0.device.token]
    }
    /// The `attachmentsByOwner` index.
    public static let attachmentsByOwner = StorageIndex<Attachment, User.ID>("attachments.ownerID", on: attachments) {
        [$0.ownerID]
    }
    /// A user's outbox entries (``OutboxRecord``).
    public static let outboxByUser = StorageIndex<OutboxRecord, User.ID>("outbox.userID", on: outbox) { [$0.userID] }
    /// Outbox entries by the row they are about (``OutboxRecord/subject``, as a lowercase UUID).
    public static let outboxBySubject = StorageIndex<OutboxRecord, String>("outbox.subject", on: outbox) {
        [WireText.lowercase($0.subject)]
    }
    /// The `diariesByAuthor` index.
    public static let diariesByAuthor = StorageIndex<Diary, User.ID>("diaries.authorID", on: diaries) { [$0.authorID] }
    /// The `diariesByAuthorMonth` index.
    public static let diariesByAuthorMonth = StorageIndex<Diary, AuthorMonth>("diaries.authorMonth", on: diaries) {
        [AuthorMonth(authorID: $0.authorID, month: $0.day.yearMonth)]
    }
    /// The `diariesByBook` index.
    public static let diariesByBook = StorageIndex<Diary, DiaryBook.ID>("diaries.bookID", on: diaries) {
        $0.bookID.map { [$0] } ?? []
    }
    /// Entries by the attachments they show.
    public static let diariesByImage = StorageIndex<Diary, Attachment.ID>("diaries.imageIDs", on: diaries) {
        $0.images.map(\.id)
    }
    /// The `booksByInviteCode` index.
    public static let booksByInviteCode = StorageIndex<DiaryBook, String>("books.inviteCode", on: books, unique: true) {
        $0.inviteCode.map { [$0] } ?? []
    }
    /// The `membershipsByBook` index.
    public static let membershipsByBook = StorageIndex<MembershipRecord, DiaryBook.ID>(
        "memberships.bookID", on: memberships
    ) { [$0.bookID] }
    /// The `membershipsByUser` index.
    public static let membershipsByUser = StorageIndex<MembershipRecord, User.ID>("memberships.userID", on: memberships) {
        [$0.userID]
    }
    /// The `postsByAuthor` index.
    public static let postsByAuthor = StorageIndex<PostRecord, User.ID>("posts.authorID", on: posts) { [$0.authorID] }
    /// The `postsByAuthorMonth` index.
    public static let postsByAuthorMonth = StorageIndex<PostRecord, AuthorMonth>("posts.authorMonth", on: posts) {
        [AuthorMonth(authorID: $0.authorID, month: $0.day.yearMonth)]
    }
    /// Posts by lowercased tag.
    public static let postsByTag = StorageIndex<PostRecord, String>("posts.tags", on: posts) {
        Array(Set($0.tags.map { $0.lowercased() }))
    }
    /// Imported posts by `blogID|guid|…` and `blogID|link|…`, for import dedupe.
    public static let postsByImportKey = StorageIndex<PostRecord, String>("posts.importKeys", on: posts) {
        importKeys(of: $0)
    }
    /// Posts by the attachments they show.
    public static let postsByImage = StorageIndex<PostRecord, Attachment.ID>("posts.imageIDs", on: posts) {
        $0.images.map(\.id)
    }
    /// The `commentsByTarget` index.
    public static let commentsByTarget = StorageIndex<CommentRecord, CommentTarget>("comments.target", on: comments) {
        [$0.target]
    }
    /// The `commentsByParent` index.
    public static let commentsByParent = StorageIndex<CommentRecord, Comment.ID>("comments.parentID", on: comments) {
        $0.parentID.map { [$0] } ?? []
    }
    /// The `commentsByAuthor` index.
    public static let commentsByAuthor = StorageIndex<CommentRecord, User.ID>("comments.authorID", on: comments) {
        [$0.authorID]
    }
    /// The `likesByUser` index.
    public static let likesByUser = StorageIndex<LikeRecord, User.ID>("likes.userID", on: likes) { [$0.userID] }
    /// Likes of a post; filtered by who liked.
    public static let likesByPost = StorageIndex<LikeRecord, Post.ID>(
        "likes.postID", on: likes, author: { Authorship(author: $0.userID, isAnonymous: false) }
    ) { [$0.postID] }
    /// The `followsByFollower` index.
    public static let followsByFollower = StorageIndex<EdgeRecord, User.ID>("follows.from", on: follows) { [$0.from] }
    /// The `followsByFollowed` index.
    public static let followsByFollowed = StorageIndex<EdgeRecord, User.ID>("follows.to", on: follows) { [$0.to] }
    /// The `blocksByBlocker` index.
    public static let blocksByBlocker = StorageIndex<EdgeRecord, User.ID>("blocks.from", on: blocks) { [$0.from] }
    /// The `blocksByBlocked` index.
    public static let blocksByBlocked = StorageIndex<EdgeRecord, User.ID>("blocks.to", on: blocks) { [$0.to] }
    /// The `anonymousBlocksByBlocker` index.
    public static let anonymousBlocksByBlocker = StorageIndex<EdgeRecord, User.ID>(
        "anonymousBlocks.from", on: anonymousBlocks
    ) { [$0.from] }
    /// The `anonymousBlocksByBlocked` index.
    public static let anonymousBlocksByBlocked = StorageIndex<EdgeRecord, User.ID>(
        "anonymousBlocks.to", on: anonymousBlocks
    ) { [$0.to] }
    /// The `reportsByReporter` index.
    public static let reportsByReporter = StorageIndex<Report, User.ID>("reports.reporterID", on: reports) {
        [$0.reporterID]
    }
    /// The `notificationsByRecipient` index.
    public static let notificationsByRecipient = StorageIndex<NotificationRecord, User.ID>(
        "notifications.recipientID", on: notifications
    ) { [$0.recipientID] }
    /// Notifications by whoever caused them, named or anonymous.
    public static let notificationsByActor = StorageIndex<NotificationRecord, User.ID>(
        "notifications.actorIDs", on: notifications
    ) { [$0.actorID, $0.anonymousActorID].compactMap { $0 } }
    /// The `blogsByOwner` index.
    public static let blogsByOwner = StorageIndex<Blog, User.ID>("blogs.ownerID", on: blogs) { [$0.ownerID] }

    // MARK: Listings

    /// Every user, newest first: what a nickname search walks.
    public static let userDirectory = StorageListing<User, Everything>("users.createdAt", on: users, rowKey: { .user(User.ID($1.id)) }) {
        [ListingEntry(Everything(), SortKey($0.createdAt, $0.id.rawValue))]
    }
    /// Each author's entries, by ``diaryListingKey(_:)``.
    public static let entriesOfAuthor = StorageListing<Diary, User.ID>("diaries.byAuthorDay", on: diaries, rowKey: { .diary(Diary.ID($1.id)) }) {
        [ListingEntry($0.authorID, diaryListingKey($0))]
    }
    /// Each author's entries with a tag (lowercased), by ``diaryListingKey(_:)``.
    public static let entriesOfAuthorTag = StorageListing<Diary, AuthorTag>(
        "diaries.byAuthorTagDay", on: diaries, rowKey: { .diary(Diary.ID($1.id)) }
    ) {
        diary in
        let key = diaryListingKey(diary)
        return Set(diary.tags.map { $0.lowercased() }).map {
            ListingEntry(AuthorTag(authorID: diary.authorID, tag: $0), key)
        }
    }
    /// The community feed: every post by creation.
    public static let feed = StorageListing<PostRecord, Everything>(
        "posts.createdAt", on: posts, author: authorship, rowKey: { .post(Post.ID($1.id)) }
    ) {
        [ListingEntry(Everything(), SortKey($0.createdAt, $0.id.rawValue))]
    }
    /// Each author's posts by creation.
    public static let postsOfAuthor = StorageListing<PostRecord, User.ID>(
        "posts.byAuthorCreatedAt", on: posts, author: authorship, rowKey: { .post(Post.ID($1.id)) }
    ) { [ListingEntry($0.authorID, SortKey($0.createdAt, $0.id.rawValue))] }
    /// Each user's likes by when they liked.
    public static let likesOfUser = StorageListing<LikeRecord, User.ID>(
        "likes.byUserCreatedAt", on: likes, rowKey: { .like($0, Post.ID($1.id)) }
    ) {
        [ListingEntry($0.userID, SortKey($0.createdAt, $0.postID.rawValue))]
    }

    // MARK: Projections

    /// What a month calendar and a streak read of each entry: its day, mood and creation, and what decides who may
    /// see it (``DiaryCalendarFields``). SQL: `SELECT id, day, mood, createdAt, visibility, bookID, isHidden,
    /// deletedAt` from a covering index on `(authorID, day)`.
    public static let diaryCalendar = StorageProjection<Diary, DiaryCalendarFields>("diaries.calendar", on: diaries) {
        if case .diary(let row) = $0 { DiaryCalendarFields(row) } else { nil }
    }

    /// Every index, for stores that derive theirs from the declarations.
    public static let allIndices: [any StorageIndexDeclaration] = [
        usersByNickname, credentialsByEmail, credentialsByExternalIdentity, sessionsByUser, devicesByUser,
        devicesByToken, attachmentsByOwner, diariesByAuthor, diariesByAuthorMonth, diariesByBook, diariesByImage,
        booksByInviteCode, membershipsByBook, membershipsByUser, postsByAuthor, postsByAuthorMonth, postsByTag,
        postsByImportKey, postsByImage, commentsByTarget, commentsByParent, commentsByAuthor, likesByUser, likesByPost,
        followsByFollower, followsByFollowed, blocksByBlocker, blocksByBlocked, anonymousBlocksByBlocker,
        anonymousBlocksByBlocked, reportsByReporter, notificationsByRecipient, notificationsByActor, blogsByOwner,
        outboxByUser, outboxBySubject,
    ]

    /// Every listing, for stores that derive theirs from the declarations.
    public static let allListings: [any StorageListingDeclaration] = [
        userDirectory, entriesOfAuthor, entriesOfAuthorTag, feed, postsOfAuthor, likesOfUser,
    ]

    // MARK: Keys

    /// Who wrote a post, for filters.
    public static let authorship: @Sendable (PostRecord) -> Authorship = {
        Authorship(author: $0.authorID, isAnonymous: $0.isAnonymous)
    }

    /// Where an entry sits in its author's listings: newest day first; within a day, newest written first (when
    /// read descending).
    public static func diaryListingKey(_ diary: Diary) -> SortKey {
        let dayMicros = Int64(diary.day.daysSince1970) * 86_400_000_000
        let timeOfDay = WireDate.microseconds(diary.createdAt) % 86_400_000_000
        return SortKey(micros: dayMicros + (timeOfDay < 0 ? timeOfDay + 86_400_000_000 : timeOfDay), id: diary.id.rawValue)
    }

    /// An imported post's dedupe keys.
    public static func importKeys(of post: PostRecord) -> [String] {
        guard case .blog(let source) = post.source else { return [] }
        var keys: [String] = []
        if let guid = source.guid { keys.append(importKey(blog: source.blogID, guid: guid)) }
        if let url = source.url { keys.append(importKey(blog: source.blogID, link: url)) }
        return keys
    }

    /// The dedupe key of an item's GUID in a blog.
    public static func importKey(blog: Blog.ID, guid: String) -> String { "\(blog)|guid|\(guid)" }

    /// The dedupe key of an item's link in a blog.
    public static func importKey(blog: Blog.ID, link: URL) -> String { "\(blog)|link|\(link.absoluteString)" }
}

/// An index declaration of any row and value type: what a store iterates to build its indices.
@_spi(Storage)
public protocol StorageIndexDeclaration: Sendable {
    /// The index's name.
    var name: String { get }
    /// The table it indexes.
    var kind: RecordKind { get }
}

/// A listing declaration of any row and partition type.
@_spi(Storage)
public protocol StorageListingDeclaration: Sendable {
    /// The listing's name.
    var name: String { get }
    /// The table it lists.
    var kind: RecordKind { get }
}

@_spi(Storage)
extension StorageIndex: StorageIndexDeclaration {
    /// The table it indexes.
    public var kind: RecordKind { table.kind }
}

@_spi(Storage)
extension StorageListing: StorageListingDeclaration {
    /// The table it lists.
    public var kind: RecordKind { table.kind }
}

/// The fields of an entry that a month calendar and a streak read (``StorageSchema/diaryCalendar``): none of its
/// text, tags or images.
@_spi(Storage)
public struct DiaryCalendarFields: Hashable, Sendable {
    /// The entry.
    public var id: Diary.ID
    /// Its author.
    public var authorID: User.ID
    /// Its book, for an entry shared with one.
    public var bookID: DiaryBook.ID?
    /// The day it belongs to.
    public var day: LocalDate
    /// Its mood, if any.
    public var mood: Mood?
    /// When it was written.
    public var createdAt: Date
    /// Who may read it.
    public var visibility: Diary.Visibility
    /// Whether moderation hid it.
    public var isHidden: Bool
    /// When it was deleted, for an entry in the trash.
    public var deletedAt: Date?

    /// The fields of an entry.
    @inline(__always)
    public init(_ diary: Diary) {
        id = diary.id
        authorID = diary.authorID
        bookID = diary.bookID
        day = diary.day
        mood = diary.mood
        createdAt = diary.createdAt
        visibility = diary.visibility
        isHidden = diary.isHidden
        deletedAt = diary.deletedAt
    }
}
