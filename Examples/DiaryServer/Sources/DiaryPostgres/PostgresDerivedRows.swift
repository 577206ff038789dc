@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// Keeps a row's derived columns and entry rows in step with it: the search columns of a post, and its entries
/// in every index and listing table of its kind. Only what changed between the row before and after is touched,
/// so a write conflicts (under `SERIALIZABLE`) only with writes to the same entries.
///
/// A change is at most two statements, each one `WITH … ` statement of data-modifying parts: every entry that goes,
/// then the row and every entry that comes. The two never share a statement, because the parts of one statement run
/// on one snapshot and cannot see each other: an insert would still meet the entry its sibling deletes.
struct PostgresDerivedRows: Sendable {
    let layout: PostgresSchemaLayout
    let logger: Logger

    /// Writes a row (or removes it, when `after` is `nil`: the caller has deleted the row itself) and moves every
    /// index and listing entry of its kind from `before` to `after`.
    /// `afterDocument` is `after`'s `doc` (``PostgresRowCoding/document(_:)``), which the caller keeps for the
    /// change log.
    func write(
        key: String, kind: RecordKind, before: StoreRecord?, after: StoreRecord?, afterDocument: String?,
        on connection: PostgresConnection
    ) async throws {
        var deletions = CombinedStatement()
        var insertions = CombinedStatement()
        if let after, let afterDocument {
            insertions.add { self.appendUpsert(after, key: key, document: afterDocument, to: &$0) }
        }
        for index in layout.indicesOfKind[kind] ?? [] {
            let old = index.declaration.entries(of: before)
            let new = index.declaration.entries(of: after)
            let gone = old.subtracting(new)
            let come = new.subtracting(old)
            if !gone.isEmpty { deletions.add { appendDelete(gone, of: key, from: index, to: &$0) } }
            if !come.isEmpty { insertions.add { appendInsert(come, of: key, into: index, to: &$0) } }
        }
        for listing in layout.listingsOfKind[kind] ?? [] {
            let old = listing.declaration.entries(of: before)
            let new = listing.declaration.entries(of: after)
            let gone = old.subtracting(new)
            let come = new.subtracting(old)
            if !gone.isEmpty { deletions.add { appendDelete(gone, of: key, from: listing, to: &$0) } }
            if !come.isEmpty { insertions.add { appendInsert(come, of: key, into: listing, to: &$0) } }
        }
        for combined in [deletions, insertions] {
            if let statement = try combined.statement() { try await connection.run(statement, logger: logger) }
        }
    }

    /// Inserts a row with every index and listing entry of its kind, in one statement, unless a row with its key is
    /// there already, in which case nothing is written.
    /// - Parameters:
    ///   - document: The row's `doc` (``PostgresRowCoding/document(_:)``).
    ///   - changeLog: A change log row to append in the same statement when the row is inserted (the write's last
    ///     statement), or `nil`.
    /// - Returns: Whether the row was inserted.
    func insertIfAbsent(
        _ record: StoreRecord, key: String, document: String, changeLog: String? = nil, on connection: PostgresConnection
    ) async throws -> Bool {
        // `WITH w0 AS (INSERT … ON CONFLICT (key) DO NOTHING RETURNING key), w1 AS (INSERT … WHERE EXISTS (SELECT
        // FROM w0)) … SELECT count(*) FROM w0`: each entry's insert reads the row's, so runs only when it did.
        var combined = CombinedStatement()
        combined.add { self.appendInsert(record, key: key, document: document, onConflict: "DO NOTHING RETURNING key", to: &$0) }
        let gate = " WHERE EXISTS (SELECT FROM w0)"
        for index in layout.indicesOfKind[record.kind] ?? [] {
            let entries = index.declaration.entries(of: record)
            if !entries.isEmpty { combined.add { appendInsert(entries, of: key, into: index, gate: gate, to: &$0) } }
        }
        for listing in layout.listingsOfKind[record.kind] ?? [] {
            let entries = listing.declaration.entries(of: record)
            if !entries.isEmpty { combined.add { appendInsert(entries, of: key, into: listing, gate: gate, to: &$0) } }
        }
        if let changeLog {
            let migrator = PostgresMigrator(layout: layout, logger: logger)
            combined.add { migrator.appendChange(changeLog, gate: gate, to: &$0) }
        }
        combined.add { $0.append("SELECT count(*) FROM w0") }
        guard let statement = try combined.statement() else { return false }
        SQLStatementLog.current?.append(other: statement.sql)
        for try await inserted in try await connection.rows(statement, logger: logger, decode: { try $0.decode(Int64.self) }) {
            return inserted == 1
        }
        return false
    }

    /// Inserts index entries (the migrator fills a new index with it).
    func insert(
        _ entries: Set<PostgresIndexEntry>, of key: String, into index: PostgresSchemaLayout.IndexTable,
        on connection: PostgresConnection
    ) async throws {
        guard !entries.isEmpty else { return }
        var statement = SQLStatement()
        appendInsert(entries, of: key, into: index, to: &statement)
        try await connection.run(statement.query, logger: logger)
    }

    /// Inserts listing entries (the migrator fills a new listing with it).
    func insert(
        _ entries: Set<PostgresListingEntry>, of key: String, into listing: PostgresSchemaLayout.ListingTable,
        on connection: PostgresConnection
    ) async throws {
        guard !entries.isEmpty else { return }
        var statement = SQLStatement()
        appendInsert(entries, of: key, into: listing, to: &statement)
        try await connection.run(statement.query, logger: logger)
    }

    // MARK: - Parts

    private func appendDelete(
        _ entries: Set<PostgresIndexEntry>, of key: String, from index: PostgresSchemaLayout.IndexTable,
        to statement: inout SQLStatement
    ) {
        statement.append("DELETE FROM \(layout.qualified(index.table)) WHERE key = ")
        statement.bind(key)
        statement.append(" AND value = ANY(")
        statement.bind(entries.map(\.value))
        statement.append("::text[])")
    }

    private func appendInsert(
        _ entries: Set<PostgresIndexEntry>, of key: String, into index: PostgresSchemaLayout.IndexTable,
        gate: String = "", to statement: inout SQLStatement
    ) {
        let entries = Array(entries)
        statement.append("INSERT INTO \(layout.qualified(index.table)) (value, key, author_id, is_anonymous) ")
        if index.declaration.isFiltered {
            statement.append("SELECT value, ")
            statement.bind(key)
            statement.append(", author_id, is_anonymous FROM unnest(")
            statement.bind(entries.map(\.value))
            statement.append("::text[], ")
            statement.bind(entries.map { $0.author?.author.rawValue ?? UUID() })
            statement.append("::uuid[], ")
            statement.bind(entries.map { $0.author?.isAnonymous ?? false })
            statement.append("::boolean[]) AS entry(value, author_id, is_anonymous)")
            statement.append(gate)
        } else {
            statement.append("SELECT value, ")
            statement.bind(key)
            statement.append("::text, NULL::uuid, NULL::boolean FROM unnest(")
            statement.bind(entries.map(\.value))
            statement.append("::text[]) AS entry(value)")
            statement.append(gate)
        }
    }

    private func appendDelete(
        _ entries: Set<PostgresListingEntry>, of key: String, from listing: PostgresSchemaLayout.ListingTable,
        to statement: inout SQLStatement
    ) {
        let entries = Array(entries)
        statement.append("DELETE FROM \(layout.qualified(listing.table)) WHERE key = ")
        statement.bind(key)
        statement.append(" AND (partition, sort_micros, sort_id) IN (SELECT * FROM unnest(")
        statement.bind(entries.map(\.partition))
        statement.append("::text[], ")
        statement.bind(entries.map(\.key.micros))
        statement.append("::bigint[], ")
        statement.bind(entries.map(\.key.id))
        statement.append("::uuid[]))")
    }

    /// An entry at a position another row already holds is left out, as the local stores' listings leave it out.
    private func appendInsert(
        _ entries: Set<PostgresListingEntry>, of key: String, into listing: PostgresSchemaLayout.ListingTable,
        gate: String = "", to statement: inout SQLStatement
    ) {
        let entries = Array(entries)
        statement.append(
            "INSERT INTO \(layout.qualified(listing.table)) (partition, sort_micros, sort_id, key, author_id, is_anonymous) ")
        statement.append("SELECT partition, sort_micros, sort_id, ")
        statement.bind(key)
        if listing.declaration.isFiltered {
            statement.append("::text, author_id, is_anonymous FROM unnest(")
        } else {
            statement.append("::text, NULL::uuid, NULL::boolean FROM unnest(")
        }
        statement.bind(entries.map(\.partition))
        statement.append("::text[], ")
        statement.bind(entries.map(\.key.micros))
        statement.append("::bigint[], ")
        statement.bind(entries.map(\.key.id))
        statement.append("::uuid[], ")
        statement.bind(entries.map { $0.author?.author.rawValue ?? UUID() })
        statement.append("::uuid[], ")
        statement.bind(entries.map { $0.author?.isAnonymous ?? false })
        statement.append("::boolean[]) AS entry(partition, sort_micros, sort_id, author_id, is_anonymous)")
        statement.append(gate)
        statement.append(" ON CONFLICT (partition, sort_micros, sort_id) DO NOTHING")
    }

    /// Inserts or replaces a row in its kind's table (with a post's search columns).
    private func appendUpsert(_ record: StoreRecord, key: String, document: String, to statement: inout SQLStatement) {
        let replace = if case .post = record {
            """
            DO UPDATE SET doc = EXCLUDED.doc, search_text = EXCLUDED.search_text, search_tags = EXCLUDED.search_tags, \
            sort_micros = EXCLUDED.sort_micros, sort_id = EXCLUDED.sort_id, author_id = EXCLUDED.author_id, \
            is_anonymous = EXCLUDED.is_anonymous
            """
        } else {
            "DO UPDATE SET doc = EXCLUDED.doc"
        }
        appendInsert(record, key: key, document: document, onConflict: replace, to: &statement)
    }

    /// `INSERT INTO <table> (key, doc[, search_text, search_tags, <the feed columns>]) VALUES (…) ON CONFLICT (key)
    /// <onConflict>`.
    private func appendInsert(
        _ record: StoreRecord, key: String, document: String, onConflict: String, to statement: inout SQLStatement
    ) {
        let table = layout.recordTable(record.kind)
        if case .post(let post) = record {
            statement.append(
                "INSERT INTO \(table) (key, doc, search_text, search_tags, sort_micros, sort_id, author_id, is_anonymous) VALUES (")
            statement.bind(key)
            statement.append(", ")
            statement.bind(document)
            statement.append("::jsonb, ")
            statement.bind(Self.searchText(of: post))
            statement.append(", ")
            statement.bind(Self.searchTags(of: post))
            statement.append("::text[], ")
            let feed = Self.feedColumns(of: post)
            statement.bind(feed.sortKey.micros)
            statement.append(", ")
            statement.bind(feed.sortKey.id)
            statement.append(", ")
            statement.bind(feed.author)
            statement.append(", ")
            statement.bind(feed.isAnonymous)
            statement.append(")")
        } else {
            statement.append("INSERT INTO \(table) (key, doc) VALUES (")
            statement.bind(key)
            statement.append(", ")
            statement.bind(document)
            statement.append("::jsonb)")
        }
        statement.append(" ON CONFLICT (key) \(onConflict)")
    }

    /// A post's `search_text`: ``PostTextQuery/searchableText(of:)``, which ``PostTextQuery/matches(_:)`` searches. A NUL
    /// (which PostgreSQL text cannot hold) is dropped; no folded query word contains one.
    static func searchText(of post: PostRecord) -> String {
        let text = PostTextQuery.searchableText(of: post)
        guard text.utf8.contains(0) else { return text }
        return String(decoding: text.utf8.filter { $0 != 0 }, as: UTF8.self)
    }

    /// A post's feed columns on `row_post`: what its entry in the feed listing (``StorageSchema/feed``) holds, its
    /// position and its authorship.
    static func feedColumns(of post: PostRecord) -> (sortKey: SortKey, author: UUID, isAnonymous: Bool) {
        let authorship = StorageSchema.authorship(post)
        return (SortKey(post.createdAt, post.id.rawValue), authorship.author.rawValue, authorship.isAnonymous)
    }

    /// A post's `search_tags`: its tags, lowercased, once each.
    static func searchTags(of post: PostRecord) -> [String] {
        Array(Set(post.tags.map { $0.lowercased() })).sorted()
    }
}

/// Data-modifying statements run as one: `WITH w0 AS (first), w1 AS (second) last`. PostgreSQL runs every part to
/// completion on one snapshot, so the parts must touch different rows and must not depend on each other's effects.
private struct CombinedStatement {
    private var parts: [(inout SQLStatement) throws -> Void] = []

    /// Adds a part, which writes itself into the statement (so its values are bound in order).
    mutating func add(_ part: @escaping (inout SQLStatement) throws -> Void) {
        parts.append(part)
    }

    /// The statement, or `nil` when no part was added.
    func statement() throws -> SQLStatement? {
        guard let last = parts.last else { return nil }
        var statement = SQLStatement()
        for (number, part) in parts.dropLast().enumerated() {
            statement.append(number == 0 ? "WITH " : ", ")
            statement.append("w\(number) AS (")
            try part(&statement)
            statement.append(")")
        }
        if parts.count > 1 { statement.append(" ") }
        try last(&statement)
        return statement
    }
}
