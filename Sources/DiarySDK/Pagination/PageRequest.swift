import Foundation

/// Which page of a listing to fetch: after a cursor (Ghost's infinite scroll) or by number (Monday Sally's pages).
///
/// ```swift
/// var request = PageRequest.first(size: 20)
/// let page = try await sdk.posts.feed(page: request)
/// if let next = page.nextRequest { request = next }
/// ```
public struct PageRequest: Hashable, Sendable, Codable {
    /// Where the page starts.
    ///
    /// As JSON: `{"type": "cursor", "cursor": "…"}` (no `cursor` for the first page) or
    /// `{"type": "number", "number": 3}`. Over HTTP a position travels as query parameters instead (`cursor`, `page`).
    public enum Position: Hashable, Sendable {
        /// The page after a cursor; `nil` for the first page.
        case cursor(PageCursor?)
        /// Page `n`, counting from 1.
        case number(Int)
    }

    /// The largest page size a backend serves.
    public static let maximumSize = 100

    /// The largest page number a backend serves: any larger one at the largest size would start past the last
    /// index an `Int` can hold, so the first item's offset, `(number - 1) × size`, can never overflow.
    public static let maximumPageNumber = Int.max / maximumSize

    /// Where the page starts.
    public var position: Position
    /// How many items a page holds, 1…``maximumSize``.
    public var size: Int

    /// Creates a request.
    /// - Parameters:
    ///   - position: Where the page starts.
    ///   - size: Items per page.
    public init(position: Position, size: Int = 20) {
        self.position = position
        self.size = size
    }

    /// The first page in cursor mode.
    /// - Parameter size: Items per page.
    /// - Returns: The request.
    public static func first(size: Int = 20) -> PageRequest {
        PageRequest(position: .cursor(nil), size: size)
    }

    /// The page after a cursor.
    /// - Parameters:
    ///   - cursor: The previous page's ``Page/nextCursor``.
    ///   - size: Items per page.
    /// - Returns: The request.
    public static func after(_ cursor: PageCursor, size: Int = 20) -> PageRequest {
        PageRequest(position: .cursor(cursor), size: size)
    }

    /// Page `number`, counting from 1.
    /// - Parameters:
    ///   - number: The page number.
    ///   - size: Items per page.
    /// - Returns: The request.
    public static func number(_ number: Int, size: Int = 20) -> PageRequest {
        PageRequest(position: .number(number), size: size)
    }

    /// Checks the size and page number: every backend calls this before cutting a page, so no page number can
    /// make the offset arithmetic overflow.
    /// - Throws: ``DiaryError`` `.invalidInput` on the `size` field (outside 1…``maximumSize``) or the `page` field
    ///   (outside 1…``maximumPageNumber``).
    public func validate() throws {
        guard (1...Self.maximumSize).contains(size) else {
            throw DiaryError.invalid("size", .notAllowed, "page size must be 1…\(Self.maximumSize), got \(size)")
        }
        if case .number(let number) = position {
            guard number >= 1 else {
                throw DiaryError.invalid("page", .notAllowed, "page numbers start at 1, got \(number)")
            }
            guard number <= Self.maximumPageNumber else {
                throw DiaryError.invalid(
                    "page", .notAllowed, "page numbers go up to \(Self.maximumPageNumber), got \(number)")
            }
        }
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case position = "position"
        case size = "size"
    }
}

extension PageRequest.Position: Codable {
    private enum CodingKeys: String, CodingKey {
        case type = "type"
        case cursor = "cursor"
        case number = "number"
    }

    private enum Kind: String, CaseIterable {
        case cursor = "cursor"
        case number = "number"
    }

    /// Decodes the object described above.
    /// - Throws: `DecodingError` when `type` is missing or names no kind of position, or `number` is missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try WireKind.decode(Kind.self, of: PageRequest.Position.self, from: container, forKey: .type) {
        case .cursor: self = .cursor(try container.decodeIfPresent(PageCursor.self, forKey: .cursor))
        case .number: self = .number(try container.decode(Int.self, forKey: .number))
        }
    }

    /// Encodes the object described above.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .cursor(let cursor):
            try container.encode(Kind.cursor.rawValue, forKey: .type)
            try container.encodeIfPresent(cursor, forKey: .cursor)
        case .number(let number):
            try container.encode(Kind.number.rawValue, forKey: .type)
            try container.encode(number, forKey: .number)
        }
    }
}

/// An opaque, `Codable` bookmark into a listing: save it and resume later.
///
/// A cursor names the last item a page returned by its sort position, so the next page starts right after it:
/// items inserted or deleted in between never make a page repeat or skip an item.
public struct PageCursor: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The opaque token; pass it back unchanged.
    public var rawValue: String

    /// Wraps a token received from a backend.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The token.
    public var description: String { rawValue }

    /// Decodes the bare token string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the bare token string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// One page of a listing.
public struct Page<Item: Sendable>: Sendable {
    /// The items, in listing order.
    public var items: [Item]
    /// In cursor mode: where the next page starts; `nil` on the last page.
    public var nextCursor: PageCursor?
    /// In number mode: this page's number.
    public var pageNumber: Int?
    /// In number mode: how many pages there are (at least 1).
    public var totalPages: Int?
    /// Whether no items follow this page.
    public var isLastPage: Bool
    /// The page size that was asked for.
    public var size: Int

    /// Creates a page.
    public init(
        items: [Item], nextCursor: PageCursor? = nil, pageNumber: Int? = nil, totalPages: Int? = nil,
        isLastPage: Bool, size: Int
    ) {
        self.items = items
        self.nextCursor = nextCursor
        self.pageNumber = pageNumber
        self.totalPages = totalPages
        self.isLastPage = isLastPage
        self.size = size
    }

    /// The request for the following page, or `nil` on the last page.
    public var nextRequest: PageRequest? {
        guard !isLastPage else { return nil }
        if let pageNumber { return .number(pageNumber + 1, size: size) }
        if let nextCursor { return .after(nextCursor, size: size) }
        return nil
    }

    /// The same page with its items transformed.
    /// - Parameter transform: Maps each item.
    /// - Returns: A page with the same position.
    public func map<Other: Sendable>(_ transform: (Item) throws -> Other) rethrows -> Page<Other> {
        Page<Other>(
            items: try items.map(transform), nextCursor: nextCursor, pageNumber: pageNumber, totalPages: totalPages,
            isLastPage: isLastPage, size: size)
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case items = "items"
        case nextCursor = "nextCursor"
        case pageNumber = "pageNumber"
        case totalPages = "totalPages"
        case isLastPage = "isLastPage"
        case size = "size"
    }
}

extension Page: Equatable where Item: Equatable {}
extension Page: Hashable where Item: Hashable {}
extension Page: Codable where Item: Codable {}
