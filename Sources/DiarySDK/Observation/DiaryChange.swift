import Foundation

/// One change a screen may want to react to: what changed and how. Only changes the signed-in user may see are
/// delivered, so a private entry's id never reaches another user.
public struct DiaryChange: Hashable, Sendable, Codable {
    /// What kind of thing changed.
    public enum Entity: String, Hashable, Sendable, Codable, CaseIterable {
        /// A user's profile.
        case user
        /// A diary entry.
        case diary
        /// A book or its membership.
        case book
        /// A post (including its likes).
        case post
        /// A comment.
        case comment
        /// A follow or block involving the signed-in user.
        case relationship
        /// A notification for the signed-in user.
        case notification
        /// A blog of the signed-in user.
        case blog
    }

    /// How it changed.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// It was created.
        case inserted
        /// It was modified.
        case updated
        /// It was deleted.
        case deleted
    }

    /// What kind of thing changed.
    public var entity: Entity
    /// Its id (for relationships, the other user's id; for a membership, the book's id).
    public var id: UUID
    /// How it changed.
    public var kind: Kind
    /// Where the change is in the store's change log: save it to resume from here later. Every change has its own,
    /// also the several changes one transaction can make (a comment and the notification it causes): a stream
    /// resumed after one of them carries on with the next.
    public var position: ChangePosition
    /// The thing as it is after the change, as the viewer sees it (someone else's anonymous post has no author,
    /// another user's profile is their public one): `nil` for a deletion, for a relationship, and where the changed
    /// thing is not the viewer's to see (a membership change shows the book only to its members; a like shows the
    /// post only when the viewer may see it).
    public var value: ChangeValue?

    /// Creates a change.
    public init(entity: Entity, id: UUID, kind: Kind, position: ChangePosition, value: ChangeValue? = nil) {
        self.entity = entity
        self.id = id
        self.kind = kind
        self.position = position
        self.value = value
    }

    private enum CodingKeys: String, CodingKey {
        case entity = "entity"
        case id = "id"
        case kind = "kind"
        case position = "position"
        case value = "value"
    }

    /// Decodes `{"position", "entity", "id", "kind", "value"?}`; `value` is decoded as the kind `entity` names.
    /// - Throws: `DecodingError` when a member is missing or invalid, or `value` is not a valid thing of its kind.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entity = try container.decode(Entity.self, forKey: .entity)
        id = try container.decode(UUID.self, forKey: .id)
        kind = try container.decode(Kind.self, forKey: .kind)
        position = try container.decode(ChangePosition.self, forKey: .position)
        value = try ChangeValue.decode(entity, from: container, forKey: .value)
    }

    /// Encodes the change in the wire format: `{"position", "entity", "id", "kind", "value"?}`, the id as a
    /// lower-case UUID like every other id on the wire (Foundation writes a bare `UUID` in upper case).
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
        try container.encode(entity, forKey: .entity)
        try container.encode(id.uuidString.lowercased(), forKey: .id)
        try container.encode(kind, forKey: .kind)
        try value?.encode(to: &container, forKey: .value)
    }
}

/// The thing a ``DiaryChange`` is about, as it is after the change and as the viewer sees it.
///
/// On the wire it is the change's `value` member, coded as the thing itself (a ``Post`` as in `GET /v1/posts/{id}`);
/// its kind is the change's `entity`.
public enum ChangeValue: Hashable, Sendable {
    /// A profile: the viewer's own in full, anyone else's public one.
    case user(User)
    /// A diary entry.
    case diary(Diary)
    /// A book.
    case book(DiaryBook)
    /// A post, with its counts as the viewer sees them.
    case post(Post)
    /// A comment.
    case comment(Comment)
    /// A notification of the viewer's.
    case notification(DiaryNotification)
    /// A blog of the viewer's.
    case blog(Blog)

    static func decode<Key: CodingKey>(
        _ entity: DiaryChange.Entity, from container: KeyedDecodingContainer<Key>, forKey key: Key
    ) throws -> ChangeValue? {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
        switch entity {
        case .user: return .user(try container.decode(User.self, forKey: key))
        case .diary: return .diary(try container.decode(Diary.self, forKey: key))
        case .book: return .book(try container.decode(DiaryBook.self, forKey: key))
        case .post: return .post(try container.decode(Post.self, forKey: key))
        case .comment: return .comment(try container.decode(Comment.self, forKey: key))
        case .notification: return .notification(try container.decode(DiaryNotification.self, forKey: key))
        case .blog: return .blog(try container.decode(Blog.self, forKey: key))
        case .relationship:
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "a relationship change carries no value")
        }
    }

    func encode<Key: CodingKey>(to container: inout KeyedEncodingContainer<Key>, forKey key: Key) throws {
        switch self {
        case .user(let value): try container.encode(value, forKey: key)
        case .diary(let value): try container.encode(value, forKey: key)
        case .book(let value): try container.encode(value, forKey: key)
        case .post(let value): try container.encode(value, forKey: key)
        case .comment(let value): try container.encode(value, forKey: key)
        case .notification(let value): try container.encode(value, forKey: key)
        case .blog(let value): try container.encode(value, forKey: key)
        }
    }
}

/// What a change stream delivers.
public enum ChangeEvent: Hashable, Sendable {
    /// The first event of a stream that could start where it was asked to: every change after this position that
    /// the viewer may see and the filter admits follows, in order. For a stream opened from now it is the head of the
    /// log; for one opened after a position, that position.
    case opened(ChangePosition)
    /// A committed change.
    case changed(DiaryChange)
    /// The log cannot say what changed since the position the stream was asked to start after (the store trimmed
    /// its log past it, or it is not a position of this store, such as one saved before the store was re-created):
    /// reload what the screen shows. Every change after the position given here follows.
    case reloadRequired(ChangePosition)

    /// The change, for ``changed(_:)``.
    public var change: DiaryChange? {
        if case .changed(let change) = self { change } else { nil }
    }

    /// The position to save once the screen has applied this event: a stream opened after it carries on from here.
    public var position: ChangePosition {
        switch self {
        case .opened(let position), .reloadRequired(let position): position
        case .changed(let change): change.position
        }
    }
}

/// Live updates: an `AsyncSequence` of changes a screen can follow instead of polling, that can resume where it
/// left off.
///
/// ```swift
/// var position: ChangePosition? = nil  // saved by the screen
/// for await event in sdk.changes.changes(.feed, after: position) {
///     switch event {
///     case .opened: break
///     case .changed(let change): viewModel.apply(change)
///     case .reloadRequired: await viewModel.reload()
///     }
///     position = event.position
/// }
/// ```
///
/// What every backend guarantees (the conformance suite checks each):
/// - Only what the signed-in user may see arrives: another user's private entry never, a blocked user's content
///   never, an anonymous author never.
/// - In the order the store committed, once each, with no gap: a stream opened after a position receives every change
///   after it that it may see, then live ones; when that is not possible, it says ``ChangeEvent/reloadRequired(_:)``.
/// - The stream ends when the session that opened it does (sign-out, account deletion, another user signing in),
///   and at once when no one is signed in.
public protocol ChangeFeed: Sendable {
    /// Changes the signed-in user may see and `filter` admits, after `position` (from now when `nil`). The first
    /// event is ``ChangeEvent/opened(_:)`` or ``ChangeEvent/reloadRequired(_:)``.
    /// - Parameters:
    ///   - filter: What the screen shows.
    ///   - position: The position of the last event the screen applied, or `nil` to start from now.
    func changes(_ filter: ChangeFilter, after position: ChangePosition?) -> AsyncStream<ChangeEvent>
}

extension ChangeFeed {
    /// Every change the signed-in user may see, from now.
    public func changes() -> AsyncStream<ChangeEvent> {
        changes(.everything, after: nil)
    }

    /// Changes `filter` admits, from now.
    /// - Parameter filter: What the screen shows.
    public func changes(_ filter: ChangeFilter) -> AsyncStream<ChangeEvent> {
        changes(filter, after: nil)
    }

    /// Every change the signed-in user may see, after `position`.
    /// - Parameter position: The position of the last event the screen applied.
    public func changes(after position: ChangePosition?) -> AsyncStream<ChangeEvent> {
        changes(.everything, after: position)
    }
}
