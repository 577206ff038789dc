import Foundation

/// An uploaded image (or other attachment) as content refers to it.
///
/// Upload bytes with ``AttachmentRepository/upload(_:)``, then put the returned reference in a draft. Images are
/// stored under their UUID and removed when the content that owns them is deleted.
public struct ImageReference: Hashable, Sendable, Codable {
    /// The attachment's id.
    public var id: Attachment.ID
    /// The MIME type, such as `image/jpeg`.
    public var contentType: String
    /// The size in bytes.
    public var byteCount: Int

    /// Creates a reference.
    public init(id: Attachment.ID, contentType: String, byteCount: Int) {
        self.id = id
        self.contentType = contentType
        self.byteCount = byteCount
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case contentType = "contentType"
        case byteCount = "byteCount"
    }
}

/// A stored file owned by a user.
public struct Attachment: Identifiable, Hashable, Sendable, Codable {
    /// An attachment's identifier.
    public typealias ID = EntityID<Attachment>

    /// The identifier, also the file's name in stores that keep files.
    public var id: ID
    /// Who uploaded it.
    public var ownerID: User.ID
    /// The MIME type.
    public var contentType: String
    /// The size in bytes.
    public var byteCount: Int
    /// When it was uploaded.
    public var createdAt: Date

    /// Creates an attachment value.
    public init(id: ID, ownerID: User.ID, contentType: String, byteCount: Int, createdAt: Date) {
        self.id = id
        self.ownerID = ownerID
        self.contentType = contentType
        self.byteCount = byteCount
        self.createdAt = createdAt
    }

    /// The reference content uses to point at this attachment.
    public var reference: ImageReference {
        ImageReference(id: id, contentType: contentType, byteCount: byteCount)
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case ownerID = "ownerID"
        case contentType = "contentType"
        case byteCount = "byteCount"
        case createdAt = "createdAt"
    }
}

/// Bytes to upload as an attachment.
public struct AttachmentUpload: Sendable, Hashable {
    /// The file's bytes.
    public var data: Data
    /// The MIME type; only `image/*` types are accepted.
    public var contentType: String

    /// Creates an upload.
    public init(data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }
}

/// A mood, shown as an emoticon: on an entry (Mongsil's mood of the day) or on a comment (a mood comment).
public struct Mood: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral {
    /// The emoticon text, such as `"😊"`.
    public var rawValue: String

    /// Wraps an emoticon.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps an emoticon literal.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// 😊
    public static let happy: Mood = "😊"
    /// 😢
    public static let sad: Mood = "😢"
    /// 😡
    public static let angry: Mood = "😡"
    /// 😌
    public static let calm: Mood = "😌"
    /// 😴
    public static let tired: Mood = "😴"

    /// Decodes the bare emoticon string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the bare emoticon string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
