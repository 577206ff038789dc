import Foundation

/// A position in a sorted listing: a timestamp in microseconds and an id to break ties.
@_spi(Storage)
public struct SortKey: Hashable, Comparable, Sendable {
    /// Microseconds since 1970.
    public var micros: Int64
    /// The row's id, which breaks ties.
    public var id: UUID

    /// The key of a row created at `date`.
    public init(_ date: Date, _ id: UUID) {
        self.micros = WireDate.microseconds(date)
        self.id = id
    }

    /// A key.
    public init(micros: Int64, id: UUID) {
        self.micros = micros
        self.id = id
    }

    public static func < (lhs: SortKey, rhs: SortKey) -> Bool {
        if lhs.micros != rhs.micros { return lhs.micros < rhs.micros }
        return withUnsafeBytes(of: lhs.id.uuid) { l in
            withUnsafeBytes(of: rhs.id.uuid) { r in l.lexicographicallyPrecedes(r) }
        }
    }

    var cursor: PageCursor {
        let text = "v1:\(micros):\(id.uuidString.lowercased())"
        return PageCursor(rawValue: Data(text.utf8).base64EncodedString())
    }

    init(cursor: PageCursor) throws {
        guard let data = Data(base64Encoded: cursor.rawValue), let text = String(data: data, encoding: .utf8) else {
            throw DiaryError.invalid("cursor", .invalidFormat, "the page cursor is not one this backend issued")
        }
        let parts = text.split(separator: ":")
        guard parts.count == 3, parts[0] == "v1", let micros = Int64(parts[1]), let id = UUID(uuidString: String(parts[2]))
        else {
            throw DiaryError.invalid("cursor", .invalidFormat, "the page cursor is not one this backend issued")
        }
        self.init(micros: micros, id: id)
    }
}

/// Cuts pages out of listings; the one place both paging styles are implemented.
package enum Paginator {
    /// A page of a listing held as sort keys in ascending order, listed newest first (`descending`) or oldest first.
    ///
    /// `resolve` turns a key into an item, or `nil` when the viewer may not see it; cursor pages stop resolving
    /// once the page is full, so the cost is proportional to the page, not the listing.
    package static func page<Item: Sendable>(
        keys: SortedKeyIndex, descending: Bool, request: PageRequest, resolve: (SortKey) throws -> Item?
    ) throws -> Page<Item> {
        try page(request: request, resolve: resolve) { keys.keys(descending: descending, after: $0) }
    }

    /// A page of a listing held as sort keys in strictly ascending order in an array.
    package static func page<Item: Sendable>(
        keys: [SortKey], descending: Bool, request: PageRequest, resolve: (SortKey) throws -> Item?
    ) throws -> Page<Item> {
        try page(request: request, resolve: resolve) { ArrayWalk(keys: keys, descending: descending, after: $0) }
    }

    /// Both paging styles over `walk`, which lists the keys in page order from just past a bound (or from the start).
    private static func page<Item: Sendable, Keys: Sequence<SortKey>>(
        request: PageRequest, resolve: (SortKey) throws -> Item?, walk: (SortKey?) -> Keys
    ) throws -> Page<Item> {
        try request.validate()
        switch request.position {
        case .cursor(let cursor):
            let after = try cursor.map(SortKey.init(cursor:))
            var items: [Item] = []
            var lastKey: SortKey?
            var hasMore = false
            for key in walk(after) {
                guard let item = try resolve(key) else { continue }
                if items.count == request.size {
                    hasMore = true
                    break
                }
                items.append(item)
                lastKey = key
            }
            return Page(
                items: items, nextCursor: hasMore ? lastKey?.cursor : nil, isLastPage: !hasMore, size: request.size)
        case .number(let number):
            var visible: [Item] = []
            for key in walk(nil) {
                if let item = try resolve(key) { visible.append(item) }
            }
            let totalPages = max(1, (visible.count + request.size - 1) / request.size)
            let start = min(visible.count, (number - 1) * request.size)
            let end = min(visible.count, start + request.size)
            return Page(
                items: Array(visible[start..<end]), pageNumber: number, totalPages: totalPages,
                isLastPage: number >= totalPages, size: request.size)
        }
    }

    /// The keys of a sorted array in page order from just past a bound, without copying the array.
    private struct ArrayWalk: Sequence, IteratorProtocol {
        let keys: [SortKey]
        let descending: Bool
        var index: Int

        init(keys: [SortKey], descending: Bool, after bound: SortKey?) {
            self.keys = keys
            self.descending = descending
            guard let bound else {
                index = descending ? keys.count - 1 : 0
                return
            }
            let boundary = SortedKeyIndex.firstIndex(in: keys, notLessThan: bound)
            if descending {
                index = boundary - 1
            } else {
                index = boundary < keys.count && keys[boundary] == bound ? boundary + 1 : boundary
            }
        }

        mutating func next() -> SortKey? {
            guard index >= 0, index < keys.count else { return nil }
            defer { index += descending ? -1 : 1 }
            return keys[index]
        }
    }

    /// A page of items already in listing order.
    package static func page<Item: Sendable>(
        ordered items: [Item], key: (Item) -> SortKey, descending: Bool, request: PageRequest
    ) throws -> Page<Item> {
        var keyed: [SortKey: Item] = [:]
        var keys: [SortKey] = []
        keys.reserveCapacity(items.count)
        for item in items {
            let sortKey = key(item)
            keyed[sortKey] = item
            keys.append(sortKey)
        }
        keys.sort()
        return try page(keys: keys, descending: descending, request: request) { keyed[$0] }
    }
}
