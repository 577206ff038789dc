import Foundation

extension Paginator {
    /// A page of a listing the store filters completely (every row it returns is shown): a cursor page reads one
    /// page past the cursor; a numbered page reads the page at its offset and the listing's count. Neither walks the
    /// listing.
    /// - Parameters:
    ///   - request: The page asked for.
    ///   - key: A row's position in the listing.
    ///   - fetch: Up to `limit` rows from a position, in page order (``StorageReader/page(_:_:descending:from:limit:where:)``).
    ///   - count: How many rows the listing has.
    ///   - views: The items shown for the page's rows, one per row in the same order, made together so that what
    ///     they show beside themselves is read once for the page.
    package static func page<Row: Sendable, Item: Sendable>(
        _ request: PageRequest, key: (Row) -> SortKey,
        fetch: (ListingPosition, Int) async throws -> [Row], count: () async throws -> Int,
        views: ([Row]) async throws -> [Item]
    ) async throws -> Page<Item> {
        try request.validate()
        switch request.position {
        case .cursor(let cursor):
            let position = try cursor.map { ListingPosition.after(try SortKey(cursor: $0)) } ?? .start
            let rows = try await fetch(position, request.size + 1)
            let hasMore = rows.count > request.size
            let items = try await views(Array(rows.prefix(request.size)))
            let next = hasMore ? key(rows[request.size - 1]).cursor : nil
            return Page(items: items, nextCursor: next, isLastPage: !hasMore, size: request.size)
        case .number(let number):
            let total = try await count()
            let totalPages = max(1, (total + request.size - 1) / request.size)
            let offset = (number - 1) * request.size
            let items = offset < total ? try await views(try await fetch(.offset(offset), request.size)) : []
            return Page(
                items: items, pageNumber: number, totalPages: totalPages, isLastPage: number >= totalPages,
                size: request.size)
        }
    }

    /// A page of a listing the engine filters further: `resolve` gives `nil` for a row that is not shown. A cursor
    /// page reads batches past the cursor until it is full; a numbered page, which must know how many rows are
    /// shown, resolves the whole listing.
    /// - Parameters:
    ///   - request: The page asked for.
    ///   - key: A row's position in the listing.
    ///   - fetch: Up to `limit` rows from a position, in page order.
    ///   - resolve: The item shown for a row, or `nil`.
    package static func page<Row: Sendable, Item: Sendable>(
        _ request: PageRequest, key: (Row) -> SortKey,
        fetch: (ListingPosition, Int) async throws -> [Row], resolve: (Row) async throws -> Item?
    ) async throws -> Page<Item> {
        try request.validate()
        let batchSize = max(64, request.size + 1)
        switch request.position {
        case .cursor(let cursor):
            var position = try cursor.map { ListingPosition.after(try SortKey(cursor: $0)) } ?? .start
            var items: [Item] = []
            var lastKey: SortKey?
            while true {
                let rows = try await fetch(position, batchSize)
                for row in rows {
                    guard let item = try await resolve(row) else { continue }
                    if items.count == request.size {
                        return Page(items: items, nextCursor: lastKey?.cursor, isLastPage: false, size: request.size)
                    }
                    items.append(item)
                    lastKey = key(row)
                }
                guard rows.count == batchSize, let last = rows.last else { break }
                position = .after(key(last))
            }
            return Page(items: items, isLastPage: true, size: request.size)
        case .number(let number):
            var visible: [Item] = []
            var position = ListingPosition.start
            while true {
                let rows = try await fetch(position, batchSize)
                for row in rows {
                    if let item = try await resolve(row) { visible.append(item) }
                }
                guard rows.count == batchSize, let last = rows.last else { break }
                position = .after(key(last))
            }
            let totalPages = max(1, (visible.count + request.size - 1) / request.size)
            let start = min(visible.count, (number - 1) * request.size)
            let end = min(visible.count, start + request.size)
            return Page(
                items: Array(visible[start..<end]), pageNumber: number, totalPages: totalPages,
                isLastPage: number >= totalPages, size: request.size)
        }
    }
}
