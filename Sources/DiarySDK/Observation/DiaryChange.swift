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
    /// Its id (for relationships, the other user's id).
    public var id: UUID
    /// How it changed.
    public var kind: Kind

    /// Creates a change.
    public init(entity: Entity, id: UUID, kind: Kind) {
        self.entity = entity
        self.id = id
        self.kind = kind
    }

    private enum CodingKeys: String, CodingKey {
        case entity, id, kind
    }

    /// Encodes the change in the wire format: `{"entity", "id", "kind"}`, the id as a lower-case UUID like every other
    /// id on the wire (Foundation writes a bare `UUID` in upper case).
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entity, forKey: .entity)
        try container.encode(id.uuidString.lowercased(), forKey: .id)
        try container.encode(kind, forKey: .kind)
    }
}

/// Live updates: an `AsyncSequence` of changes a screen can follow instead of polling.
///
/// ```swift
/// for await change in sdk.changes.changes() where change.entity == .post {
///     await viewModel.reload()
/// }
/// ```
public protocol ChangeFeed: Sendable {
    /// Changes from now on, as the signed-in user may see them. The stream ends when the backend closes.
    func changes() -> AsyncStream<DiaryChange>
}
