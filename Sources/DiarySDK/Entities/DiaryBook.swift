import Foundation

/// A diary book shared with friends (duck-z): members take turns writing entries into it.
public struct DiaryBook: Identifiable, Hashable, Sendable, Codable {
    /// A book's identifier.
    public typealias ID = EntityID<DiaryBook>

    /// The identifier.
    public var id: ID
    /// The title.
    public var title: String
    /// The cover colour as `#RRGGBB`.
    public var coverColor: String
    /// Stickers placed on the cover.
    public var stickers: [Sticker]
    /// The owner, who can rotate the invite code and remove members.
    public var ownerID: User.ID
    /// The invite code; `nil` when viewed by a non-member or before one was created.
    public var inviteCode: String?
    /// Whose turn it is to write.
    public var currentTurn: User.ID?
    /// When it was created.
    public var createdAt: Date
    /// When it or its entries last changed: book lists are ordered by this, newest first.
    public var updatedAt: Date

    /// Creates a book value.
    public init(
        id: ID, title: String, coverColor: String, stickers: [Sticker] = [], ownerID: User.ID, inviteCode: String? = nil,
        currentTurn: User.ID? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.title = title
        self.coverColor = coverColor
        self.stickers = stickers
        self.ownerID = ownerID
        self.inviteCode = inviteCode
        self.currentTurn = currentTurn
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case title = "title"
        case coverColor = "coverColor"
        case stickers = "stickers"
        case ownerID = "ownerID"
        case inviteCode = "inviteCode"
        case currentTurn = "currentTurn"
        case createdAt = "createdAt"
        case updatedAt = "updatedAt"
    }
}

/// A sticker placed on a diary book's cover (``DiaryBook/stickers``), at a position relative to the cover's size
/// (0…1). Only books carry stickers: a diary entry (``Diary``) has none.
public struct Sticker: Hashable, Sendable, Codable {
    /// The sticker's name in the app's sticker set.
    public var name: String
    /// Horizontal position, 0 (left) to 1 (right).
    public var x: Double
    /// Vertical position, 0 (top) to 1 (bottom).
    public var y: Double
    /// Rotation in degrees.
    public var rotation: Double

    /// Creates a sticker.
    public init(name: String, x: Double, y: Double, rotation: Double = 0) {
        self.name = name
        self.x = x
        self.y = y
        self.rotation = rotation
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case name = "name"
        case x = "x"
        case y = "y"
        case rotation = "rotation"
    }
}

/// A user's membership of a book.
public struct BookMember: Hashable, Sendable, Codable {
    /// A member's role.
    public enum Role: String, Hashable, Sendable, Codable {
        /// The owner.
        case owner
        /// Any other member.
        case member
    }

    /// The book.
    public var bookID: DiaryBook.ID
    /// The member's profile.
    public var user: AuthorSummary
    /// The role.
    public var role: Role
    /// When they joined; turns go round in joining order.
    public var joinedAt: Date

    /// Creates a membership value.
    public init(bookID: DiaryBook.ID, user: AuthorSummary, role: Role, joinedAt: Date) {
        self.bookID = bookID
        self.user = user
        self.role = role
        self.joinedAt = joinedAt
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case bookID = "bookID"
        case user = "user"
        case role = "role"
        case joinedAt = "joinedAt"
    }
}

/// What a user fills in to create a book.
public struct BookDraft: Hashable, Sendable, Codable {
    /// The title.
    public var title: String
    /// The cover colour as `#RRGGBB`.
    public var coverColor: String
    /// Cover stickers.
    public var stickers: [Sticker]

    /// Creates a draft.
    public init(title: String, coverColor: String = "#FFD166", stickers: [Sticker] = []) {
        self.title = title
        self.coverColor = coverColor
        self.stickers = stickers
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case title = "title"
        case coverColor = "coverColor"
        case stickers = "stickers"
    }
}

/// Changes to a book: `nil` fields are left as they are.
public struct BookEdit: Hashable, Sendable, Codable {
    /// A new title.
    public var title: String?
    /// A new cover colour.
    public var coverColor: String?
    /// New stickers.
    public var stickers: [Sticker]?

    /// Creates an edit.
    public init(title: String? = nil, coverColor: String? = nil, stickers: [Sticker]? = nil) {
        self.title = title
        self.coverColor = coverColor
        self.stickers = stickers
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case title = "title"
        case coverColor = "coverColor"
        case stickers = "stickers"
    }
}
