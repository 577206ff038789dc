import Foundation

/// A stored password: PBKDF2-HMAC-SHA256 with a per-user salt. The password itself is never stored.
@_spi(Storage)
public struct CredentialRecord: Hashable, Sendable {
    public var userID: User.ID
    public var email: String
    public var salt: String
    public var iterations: Int
    public var hash: String
    /// External identities linked to the account, as `provider:subject`.
    public var externalIdentities: [String]

    public init(userID: User.ID, email: String, salt: String, iterations: Int, hash: String, externalIdentities: [String]) {
        self.userID = userID
        self.email = email
        self.salt = salt
        self.iterations = iterations
        self.hash = hash
        self.externalIdentities = externalIdentities
    }
}

/// A local session: only the SHA-256 of the token is stored.
@_spi(Storage)
public struct SessionRecord: Hashable, Sendable {
    public var tokenHash: String
    public var userID: User.ID
    public var createdAt: Date

    public init(tokenHash: String, userID: User.ID, createdAt: Date) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.createdAt = createdAt
    }
}

/// A push token registered by a user.
@_spi(Storage)
public struct DeviceRecord: Hashable, Sendable {
    public var userID: User.ID
    public var device: DeviceToken
    public var registeredAt: Date

    public init(userID: User.ID, device: DeviceToken, registeredAt: Date) {
        self.userID = userID
        self.device = device
        self.registeredAt = registeredAt
    }
}

/// A user's membership of a book.
@_spi(Storage)
public struct MembershipRecord: Hashable, Sendable {
    public var bookID: DiaryBook.ID
    public var userID: User.ID
    public var role: BookMember.Role
    public var joinedAt: Date

    public init(bookID: DiaryBook.ID, userID: User.ID, role: BookMember.Role, joinedAt: Date) {
        self.bookID = bookID
        self.userID = userID
        self.role = role
        self.joinedAt = joinedAt
    }
}

/// A comment as stored: the author is always known to the store, never to other users of anonymous comments.
@_spi(Storage)
public struct CommentRecord: Hashable, Sendable {
    public var id: Comment.ID
    public var target: CommentTarget
    public var parentID: Comment.ID?
    public var authorID: User.ID
    public var isAnonymous: Bool
    public var body: String
    public var mood: Mood?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: Comment.ID, target: CommentTarget, parentID: Comment.ID?, authorID: User.ID, isAnonymous: Bool, body: String, mood: Mood?, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.target = target
        self.parentID = parentID
        self.authorID = authorID
        self.isAnonymous = isAnonymous
        self.body = body
        self.mood = mood
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A post as stored.
@_spi(Storage)
public struct PostRecord: Hashable, Sendable {
    public var id: Post.ID
    public var authorID: User.ID
    public var isAnonymous: Bool
    public var title: String
    public var body: String
    public var tags: [String]
    public var images: [ImageReference]
    public var source: PostSource
    public var day: LocalDate
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: Post.ID, authorID: User.ID, isAnonymous: Bool, title: String, body: String, tags: [String], images: [ImageReference], source: PostSource, day: LocalDate, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.authorID = authorID
        self.isAnonymous = isAnonymous
        self.title = title
        self.body = body
        self.tags = tags
        self.images = images
        self.source = source
        self.day = day
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A like.
@_spi(Storage)
public struct LikeRecord: Hashable, Sendable {
    public var userID: User.ID
    public var postID: Post.ID
    public var createdAt: Date

    public init(userID: User.ID, postID: Post.ID, createdAt: Date) {
        self.userID = userID
        self.postID = postID
        self.createdAt = createdAt
    }
}

/// A follow, a block, or an anonymous block (the same shape: who → whom).
///
/// An anonymous block (``StoreRecord/anonymousBlock(_:)``) is kept apart from user blocks: `from` blocked the author
/// of one of `to`'s anonymous posts or comments without learning who it is, so it hides `to`'s anonymous content
/// from `from` and nothing else, and is never listed by name.
@_spi(Storage)
public struct EdgeRecord: Hashable, Sendable {
    public var from: User.ID
    public var to: User.ID
    public var createdAt: Date

    public init(from: User.ID, to: User.ID, createdAt: Date) {
        self.from = from
        self.to = to
        self.createdAt = createdAt
    }
}

/// A notification as stored: the actor is resolved when read, so nickname changes show.
@_spi(Storage)
public struct NotificationRecord: Hashable, Sendable {
    public var id: DiaryNotification.ID
    public var recipientID: User.ID
    public var kind: NotificationKind
    /// Who caused it, when they acted under their name.
    public var actorID: User.ID?
    /// Who caused it, when they acted anonymously: never shown, only checked against the recipient's anonymous
    /// blocks. `nil` in notifications stored before it was kept.
    public var anonymousActorID: User.ID?
    public var bookID: DiaryBook.ID?
    public var diaryID: Diary.ID?
    public var postID: Post.ID?
    public var commentID: Comment.ID?
    public var createdAt: Date
    public var isRead: Bool

    public init(id: DiaryNotification.ID, recipientID: User.ID, kind: NotificationKind, actorID: User.ID?, anonymousActorID: User.ID? = nil, bookID: DiaryBook.ID?, diaryID: Diary.ID?, postID: Post.ID?, commentID: Comment.ID?, createdAt: Date, isRead: Bool) {
        self.id = id
        self.recipientID = recipientID
        self.kind = kind
        self.actorID = actorID
        self.anonymousActorID = anonymousActorID
        self.bookID = bookID
        self.diaryID = diaryID
        self.postID = postID
        self.commentID = commentID
        self.createdAt = createdAt
        self.isRead = isRead
    }
}

/// The id of a deleted entry, post or comment, kept for good so that no create can take it again.
///
/// Clients may choose the ids of what they create (an entry written offline keeps its id), so an id that was once
/// in use must never name something else: a report, a notification or another device's outbox may still name it,
/// and a create retried after the row was deleted must not bring it back. ``DiaryEngine`` writes one of these in
/// the transaction that removes the row and refuses a chosen id that has one.
@_spi(Storage)
public struct RetiredIDRecord: Hashable, Sendable {
    /// The id that was in use.
    public var id: UUID
    /// What it named: ``RecordKind/diary``, ``RecordKind/post`` or ``RecordKind/comment``.
    public var kind: RecordKind
    /// When the row was deleted.
    public var retiredAt: Date

    /// A retired id.
    public init(id: UUID, kind: RecordKind, retiredAt: Date) {
        self.id = id
        self.kind = kind
        self.retiredAt = retiredAt
    }
}

/// A write made on a device and not yet delivered to the server: one entry of an offline backend's outbox.
///
/// The offline backend (`DiarySDKOffline`) puts one in the same transaction as the local write it stands for, so
/// the write and its place in the outbox are durable together or not at all, and removes it in the transaction
/// that records the server's answer. The core only stores it: what `operation` and `payload` mean is the offline
/// backend's.
@_spi(Storage)
public struct OutboxRecord: Hashable, Sendable {
    /// The entry's id, sent as the write's `Idempotency-Key` on every attempt.
    public var id: UUID
    /// The entry's place in its user's outbox: entries are sent in increasing order.
    public var sequence: Int
    /// Who made the write.
    public var userID: User.ID
    /// The id of the row the write is about (the entry written, edited or deleted), so the rows a queue still
    /// changes are found without reading the payloads.
    public var subject: UUID
    /// The repository operation, for example `"diaries.write"`.
    public var operation: String
    /// The operation's arguments, as JSON text written by the offline backend.
    public var payload: String
    /// When the write was made on the device.
    public var createdAt: Date
    /// How many times sending it failed for a reason other than the server's answer (the network, the server down).
    public var attempts: Int

    /// Creates an outbox entry; `attempts` starts at 0.
    public init(
        id: UUID, sequence: Int, userID: User.ID, subject: UUID, operation: String, payload: String, createdAt: Date,
        attempts: Int = 0
    ) {
        self.id = id
        self.sequence = sequence
        self.userID = userID
        self.subject = subject
        self.operation = operation
        self.payload = payload
        self.createdAt = createdAt
        self.attempts = attempts
    }
}

/// One stored row of any kind: the unit of snapshots, journals and change events.
///
/// Rows are not written through the public types' coding: `StoreRecord`'s `Codable` (`{"kind": row}`, for example
/// `{"diary": {...}}`) and ``encodeRow(with:)`` go through the persisted row types in `Persisted/`, whose explicit
/// keys and ``PersistedLayout`` fix the format; docs/FileStoreFormat.md documents it.
@_spi(Storage)
public indirect enum StoreRecord: Hashable, Sendable {
    case user(User)
    case credential(CredentialRecord)
    case session(SessionRecord)
    case device(DeviceRecord)
    case diary(Diary)
    case book(DiaryBook)
    case membership(MembershipRecord)
    case comment(CommentRecord)
    case post(PostRecord)
    case like(LikeRecord)
    case follow(EdgeRecord)
    case block(EdgeRecord)
    /// `from` blocked the author of `to`'s anonymous content without learning who it is.
    case anonymousBlock(EdgeRecord)
    case report(Report)
    case notification(NotificationRecord)
    case blog(Blog)
    case attachment(Attachment)
    case retiredID(RetiredIDRecord)
    case outbox(OutboxRecord)

    public var key: RecordKey {
        switch self {
        case .user(let value): .user(value.id)
        case .credential(let value): .credential(value.userID)
        case .session(let value): .session(value.tokenHash)
        case .device(let value): .device(value.userID, value.device.token)
        case .diary(let value): .diary(value.id)
        case .book(let value): .book(value.id)
        case .membership(let value): .membership(value.bookID, value.userID)
        case .comment(let value): .comment(value.id)
        case .post(let value): .post(value.id)
        case .like(let value): .like(value.userID, value.postID)
        case .follow(let value): .follow(value.from, value.to)
        case .block(let value): .block(value.from, value.to)
        case .anonymousBlock(let value): .anonymousBlock(value.from, value.to)
        case .report(let value): .report(value.id)
        case .notification(let value): .notification(value.id)
        case .blog(let value): .blog(value.id)
        case .attachment(let value): .attachment(value.id)
        case .retiredID(let value): .retiredID(value.id)
        case .outbox(let value): .outbox(value.id)
        }
    }
}

/// The identity of a stored row (coded through `RecordKey+Persisted.swift`).
@_spi(Storage)
public enum RecordKey: Hashable, Sendable {
    case user(User.ID)
    case credential(User.ID)
    case session(String)
    case device(User.ID, String)
    case diary(Diary.ID)
    case book(DiaryBook.ID)
    case membership(DiaryBook.ID, User.ID)
    case comment(Comment.ID)
    case post(Post.ID)
    case like(User.ID, Post.ID)
    case follow(User.ID, User.ID)
    case block(User.ID, User.ID)
    case anonymousBlock(User.ID, User.ID)
    case report(Report.ID)
    case notification(DiaryNotification.ID)
    case blog(Blog.ID)
    case attachment(Attachment.ID)
    case retiredID(UUID)
    case outbox(UUID)
}

/// One change a transaction made: the row before and after (`nil` for an insert's before or a delete's after).
@_spi(Storage)
public struct StoreMutation: Hashable, Sendable {
    /// The row before, `nil` for an insert.
    public var before: StoreRecord?
    /// The row after, `nil` for a removal.
    public var after: StoreRecord?

    /// A mutation.
    public init(before: StoreRecord?, after: StoreRecord?) {
        self.before = before
        self.after = after
    }
}
