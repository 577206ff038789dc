import Foundation

/// What a change stream carries: what one screen shows, instead of everything the signed-in user may see.
///
/// A filter narrows what the viewer may see, never widens it: every rule of ``ChangeFeed`` applies first. It is
/// evaluated by the engine that decides visibility (on the device for the local backends, on the server over HTTP),
/// so a change a screen does not show is not sent to it.
///
/// ```swift
/// // A book's screen: the book, its members, its entries and their comments.
/// for await event in sdk.changes.changes(.book(bookID)) {
///     await screen.apply(event)
/// }
/// ```
public struct ChangeFilter: Hashable, Sendable, CustomStringConvertible {
    enum Scope: Hashable, Sendable {
        case everything
        case entities(Set<DiaryChange.Entity>)
        case book(DiaryBook.ID)
        case post(Post.ID)
        case entry(Diary.ID)
    }

    let scope: Scope

    private init(_ scope: Scope) {
        self.scope = scope
    }

    /// Every change the viewer may see.
    public static let everything = ChangeFilter(.everything)

    /// Changes to these kinds of things only.
    /// - Parameter entities: The kinds; an empty set admits nothing.
    public static func entities(_ entities: Set<DiaryChange.Entity>) -> ChangeFilter {
        ChangeFilter(.entities(entities))
    }

    /// The community feed: posts (a like changes its post).
    public static let feed = ChangeFilter(.entities([.post]))

    /// The signed-in user's notifications.
    public static let notifications = ChangeFilter(.entities([.notification]))

    /// One book's screen: the book and its membership (as `.book` changes), the entries written in it and the
    /// comments on those entries.
    /// - Parameter id: The book.
    public static func book(_ id: DiaryBook.ID) -> ChangeFilter {
        ChangeFilter(.book(id))
    }

    /// One post's screen: the post (a like changes it) and the comments on it.
    /// - Parameter id: The post.
    public static func post(_ id: Post.ID) -> ChangeFilter {
        ChangeFilter(.post(id))
    }

    /// One entry's screen: the entry and the comments on it.
    /// - Parameter id: The entry.
    public static func entry(_ id: Diary.ID) -> ChangeFilter {
        ChangeFilter(.entry(id))
    }

    /// The filter as the REST API writes it in `GET /v1/changes?filter=`: `feed`, `notifications`,
    /// `entities:post,comment`, `book:<id>`, `post:<id>` or `entry:<id>`; `everything` for ``everything`` (which the
    /// API writes as no parameter).
    public var description: String {
        wireValue ?? "everything"
    }

    /// The value of the `filter` query parameter, `nil` for ``everything`` (no parameter).
    @_spi(Engine)
    public var wireValue: String? {
        switch scope {
        case .everything: nil
        case .entities(let entities) where entities == [.post]: "feed"
        case .entities(let entities) where entities == [.notification]: "notifications"
        case .entities(let entities): "entities:" + entities.map(\.rawValue).sorted().joined(separator: ",")
        case .book(let id): "book:" + id.rawValue.uuidString.lowercased()
        case .post(let id): "post:" + id.rawValue.uuidString.lowercased()
        case .entry(let id): "entry:" + id.rawValue.uuidString.lowercased()
        }
    }

    /// Reads the `filter` query parameter.
    /// - Throws: ``DiaryError/Code/invalidInput`` naming what is wrong.
    @_spi(Engine)
    public init(wireValue: String) throws {
        func id(_ text: Substring) throws -> UUID {
            guard let id = UUID(uuidString: String(text)) else {
                throw DiaryError.invalid("filter", .invalidFormat, "filter: '\(text.prefix(64))' is not an id")
            }
            return id
        }
        switch wireValue {
        case "everything": self = .everything
        case "feed": self = .feed
        case "notifications": self = .notifications
        default:
            guard let colon = wireValue.firstIndex(of: ":") else {
                throw DiaryError.invalid("filter", .invalidFormat, 
                    "filter: expected feed, notifications, entities:<kinds>, book:<id>, post:<id> or entry:<id>")
            }
            let argument = wireValue[wireValue.index(after: colon)...]
            switch wireValue[..<colon] {
            case "entities":
                var entities = Set<DiaryChange.Entity>()
                for name in argument.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let entity = DiaryChange.Entity(rawValue: String(name)) else {
                        let known = DiaryChange.Entity.allCases.map(\.rawValue).joined(separator: ", ")
                        throw DiaryError.invalid("filter", .invalidFormat, "filter: '\(name.prefix(64))' is not a kind of change (\(known))")
                    }
                    entities.insert(entity)
                }
                self = .entities(entities)
            case "book": self = .book(DiaryBook.ID(rawValue: try id(argument)))
            case "post": self = .post(Post.ID(rawValue: try id(argument)))
            case "entry": self = .entry(Diary.ID(rawValue: try id(argument)))
            default:
                throw DiaryError.invalid("filter", .invalidFormat, 
                    "filter: '\(wireValue[..<colon].prefix(64))' is not a filter (entities, book, post or entry)")
            }
        }
    }
}
