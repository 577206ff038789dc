@_spi(Storage) import DiarySDK
import Foundation

/// The writes an offline backend makes on the device and sends later, as their outbox entries name them.
enum OutboxOperation: String, Sendable, CaseIterable {
    case writeDiary = "diaries.write"
    case editDiary = "diaries.edit"
    case deleteDiary = "diaries.delete"
    case setHidden = "diaries.setHidden"
    case setFavourite = "diaries.setFavourite"
    case addComment = "comments.add"
    case editComment = "comments.edit"
    case deleteComment = "comments.delete"
    case like = "posts.like"
    case unlike = "posts.unlike"

    /// Whether it is a write of the community's (a comment or a like): sent with a ``CommunityPayload``, and never
    /// applied to the replica, which holds the user's own entries.
    var isCommunity: Bool {
        switch self {
        case .writeDiary, .editDiary, .deleteDiary, .setHidden, .setFavourite: false
        case .addComment, .editComment, .deleteComment, .like, .unlike: true
        }
    }
}

/// A local write about to run, and how its outbox entry is made from what the write returned.
struct PendingWrite: Sendable {
    /// The entry's id, its idempotency key.
    let id: UUID
    let userID: User.ID
    let operation: OutboxOperation
    let createdAt: Date
    /// The entry's subject (the row the write is about) and payload for the write's result, or `nil` when there is
    /// nothing to send.
    let payload: @Sendable (any Sendable) throws -> (subject: UUID, payload: String)?
}

/// What an outbox entry sends: the entry it is about, and the arguments of its operation. Written with explicit
/// member names, so the outbox a release wrote is read by the next.
struct OutboxPayload: Codable, Sendable, Hashable {
    /// The entry the write is about (chosen on the device for a new entry).
    var entryID: Diary.ID
    /// For ``OutboxOperation/writeDiary``: the entry as written on the device.
    var draft: DiaryDraft?
    /// For ``OutboxOperation/editDiary``: the fields the edit set.
    var edit: EditedFields?
    /// For ``OutboxOperation/setHidden`` and ``OutboxOperation/setFavourite``.
    var flag: Bool?

    private enum CodingKeys: String, CodingKey {
        case entryID = "entryID"
        case draft = "draft"
        case edit = "edit"
        case flag = "flag"
    }

    /// A ``DiaryEdit`` with the difference between "leave the mood" and "clear the mood" spelled out.
    struct EditedFields: Codable, Sendable, Hashable {
        var day: LocalDate?
        var title: String?
        var body: String?
        var mood: Mood?
        var clearsMood: Bool
        var tags: [String]?
        var images: [ImageReference]?
        var visibility: Diary.Visibility?

        init(_ edit: DiaryEdit) {
            day = edit.day
            title = edit.title
            body = edit.body
            mood = edit.mood ?? nil
            clearsMood = edit.mood == .some(nil)
            tags = edit.tags
            images = edit.images
            visibility = edit.visibility
        }

        var diaryEdit: DiaryEdit {
            DiaryEdit(
                day: day, title: title, body: body, mood: clearsMood ? .some(nil) : mood.map { .some($0) }, tags: tags,
                images: images, visibility: visibility)
        }

        /// The fields the edit sets.
        var fields: Set<DiaryField> {
            var fields: Set<DiaryField> = []
            if day != nil { fields.insert(.day) }
            if title != nil { fields.insert(.title) }
            if body != nil { fields.insert(.body) }
            if mood != nil || clearsMood { fields.insert(.mood) }
            if tags != nil { fields.insert(.tags) }
            if images != nil { fields.insert(.images) }
            if visibility != nil { fields.insert(.visibility) }
            return fields
        }

        private enum CodingKeys: String, CodingKey {
            case day = "day"
            case title = "title"
            case body = "body"
            case mood = "mood"
            case clearsMood = "clearsMood"
            case tags = "tags"
            case images = "images"
            case visibility = "visibility"
        }
    }

    /// The fields of the entry this write sets.
    func fields(of operation: OutboxOperation) -> Set<DiaryField> {
        switch operation {
        case .writeDiary: [.day, .title, .body, .mood, .tags, .images, .visibility]
        case .editDiary: edit?.fields ?? []
        case .setHidden: [.isHidden]
        case .setFavourite: [.isFavourite]
        case .deleteDiary, .addComment, .editComment, .deleteComment, .like, .unlike: []
        }
    }

    /// The outbox entry's subject and payload text.
    func encoded() throws -> (subject: UUID, payload: String) {
        (entryID.rawValue, String(decoding: try Self.encoder.encode(self), as: UTF8.self))
    }

    static func decode(_ entry: OutboxRecord) throws -> OutboxPayload {
        do {
            return try JSONDecoder.diary().decode(OutboxPayload.self, from: Data(entry.payload.utf8))
        } catch {
            throw DiaryError(
                .storageCorrupted, "the outbox entry \(entry.id) (\(entry.operation)) could not be read",
                underlying: error)
        }
    }

    private static let encoder = JSONEncoder.diary()
}

/// What a comment or like in the outbox sends. Written with explicit member names, so the outbox a release wrote is
/// read by the next.
struct CommunityPayload: Codable, Sendable, Hashable {
    /// For ``OutboxOperation/addComment``: the comment, with the id chosen on the device.
    var draft: CommentDraft?
    /// For ``OutboxOperation/editComment`` and ``OutboxOperation/deleteComment``.
    var commentID: Comment.ID?
    /// For ``OutboxOperation/editComment``: the new text and mood.
    var body: String?
    var mood: Mood?
    /// For ``OutboxOperation/like`` and ``OutboxOperation/unlike``.
    var postID: Post.ID?
    /// For ``OutboxOperation/editComment``: the comment as the device had it before the edit, when it had it (so a
    /// refused edit is reported with what was written).
    var comment: Comment?

    private enum CodingKeys: String, CodingKey {
        case draft = "draft"
        case commentID = "commentID"
        case body = "body"
        case mood = "mood"
        case postID = "postID"
        case comment = "comment"
    }

    /// The row the write is about: the comment, or the liked post.
    var subject: UUID? {
        draft?.id?.rawValue ?? commentID?.rawValue ?? postID?.rawValue
    }

    /// The outbox entry's subject and payload text.
    func encoded() throws -> (subject: UUID, payload: String) {
        guard let subject else { throw DiaryError(.server, "a community outbox entry names no comment or post") }
        return (subject, String(decoding: try Self.encoder.encode(self), as: UTF8.self))
    }

    static func decode(_ entry: OutboxRecord) throws -> CommunityPayload {
        do {
            return try JSONDecoder.diary().decode(CommunityPayload.self, from: Data(entry.payload.utf8))
        } catch {
            throw DiaryError(
                .storageCorrupted, "the outbox entry \(entry.id) (\(entry.operation)) could not be read",
                underlying: error)
        }
    }

    private static let encoder = JSONEncoder.diary()
}

/// A field of an entry a user writes, as conflicts name them.
public enum DiaryField: String, Hashable, Sendable, Codable, CaseIterable {
    /// ``Diary/day``.
    case day
    /// ``Diary/title``.
    case title
    /// ``Diary/body``.
    case body
    /// ``Diary/mood``.
    case mood
    /// ``Diary/tags``.
    case tags
    /// ``Diary/images``.
    case images
    /// ``Diary/visibility``.
    case visibility
    /// ``Diary/isHidden``.
    case isHidden
    /// ``Diary/isFavourite``.
    case isFavourite

    /// Whether two versions of an entry differ in this field.
    func differs(_ lhs: Diary, _ rhs: Diary) -> Bool {
        switch self {
        case .day: lhs.day != rhs.day
        case .title: lhs.title != rhs.title
        case .body: lhs.body != rhs.body
        case .mood: lhs.mood != rhs.mood
        case .tags: lhs.tags != rhs.tags
        case .images: lhs.images != rhs.images
        case .visibility: lhs.visibility != rhs.visibility
        case .isHidden: lhs.isHidden != rhs.isHidden
        case .isFavourite: lhs.isFavourite != rhs.isFavourite
        }
    }
}

extension DiaryDraft {
    /// The create that makes `diary` on the server, with its id.
    init(recreating diary: Diary) {
        self.init(
            id: diary.id, day: diary.day, title: diary.title, body: diary.body, mood: diary.mood, tags: diary.tags,
            images: diary.images, visibility: diary.visibility, bookID: diary.bookID)
    }
}
