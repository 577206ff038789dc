@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// Keeps a row's derived columns and entry rows in step with it: the search columns of a post, and its entries
/// in every index and listing table of its kind. Only what changed between the row before and after is touched,
/// so a write conflicts (under `SERIALIZABLE`) only with writes to the same entries.
struct PostgresDerivedRows: Sendable {
    let layout: PostgresSchemaLayout
    let logger: Logger

    /// Updates every index and listing table of the row's kind from `before` to `after` (either may be `nil`).
    func update(key: String, kind: RecordKind, before: StoreRecord?, after: StoreRecord?, on connection: PostgresConnection) async throws {
        for index in layout.indicesOfKind[kind] ?? [] {
            let old = index.declaration.entries(of: before)
            let new = index.declaration.entries(of: after)
            try await delete(old.subtracting(new), of: key, from: index, on: connection)
            try await insert(new.subtracting(old), of: key, into: index, on: connection)
        }
        for listing in layout.listingsOfKind[kind] ?? [] {
            let old = listing.declaration.entries(of: before)
            let new = listing.declaration.entries(of: after)
            try await delete(old.subtracting(new), of: key, from: listing, on: connection)
            try await insert(new.subtracting(old), of: key, into: listing, on: connection)
        }
    }

    func delete(
        _ entries: Set<PostgresIndexEntry>, of key: String, from index: PostgresSchemaLayout.IndexTable,
        on connection: PostgresConnection
    ) async throws {
        guard !entries.isEmpty else { return }
        var statement = SQLStatement("DELETE FROM \(layout.qualified(index.table)) WHERE key = ")
        statement.bind(key)
        statement.append(" AND value = ANY(")
        statement.bind(entries.map(\.value))
        statement.append(")")
        try await connection.run(statement.query, logger: logger)
    }

    func insert(
        _ entries: Set<PostgresIndexEntry>, of key: String, into index: PostgresSchemaLayout.IndexTable,
        on connection: PostgresConnection
    ) async throws {
        guard !entries.isEmpty else { return }
        let entries = Array(entries)
        var statement = SQLStatement("INSERT INTO \(layout.qualified(index.table)) (value, key, author_id, is_anonymous) ")
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
        } else {
            statement.append("SELECT value, ")
            statement.bind(key)
            statement.append(", NULL, NULL FROM unnest(")
            statement.bind(entries.map(\.value))
            statement.append("::text[]) AS entry(value)")
        }
        try await connection.run(statement.query, logger: logger)
    }

    func delete(
        _ entries: Set<PostgresListingEntry>, of key: String, from listing: PostgresSchemaLayout.ListingTable,
        on connection: PostgresConnection
    ) async throws {
        guard !entries.isEmpty else { return }
        let entries = Array(entries)
        var statement = SQLStatement("DELETE FROM \(layout.qualified(listing.table)) WHERE key = ")
        statement.bind(key)
        statement.append(" AND (partition, sort_micros, sort_id) IN (SELECT * FROM unnest(")
        statement.bind(entries.map(\.partition))
        statement.append("::text[], ")
        statement.bind(entries.map(\.key.micros))
        statement.append("::bigint[], ")
        statement.bind(entries.map(\.key.id))
        statement.append("::uuid[]))")
        try await connection.run(statement.query, logger: logger)
    }

    /// Inserts listing entries; an entry at a position another row already holds is left out, as the local stores'
    /// listings leave it out.
    func insert(
        _ entries: Set<PostgresListingEntry>, of key: String, into listing: PostgresSchemaLayout.ListingTable,
        on connection: PostgresConnection
    ) async throws {
        guard !entries.isEmpty else { return }
        let entries = Array(entries)
        var statement = SQLStatement(
            "INSERT INTO \(layout.qualified(listing.table)) (partition, sort_micros, sort_id, key, author_id, is_anonymous) "
        )
        statement.append("SELECT partition, sort_micros, sort_id, ")
        statement.bind(key)
        if listing.declaration.isFiltered {
            statement.append(", author_id, is_anonymous FROM unnest(")
        } else {
            statement.append(", NULL::uuid, NULL::boolean FROM unnest(")
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
        statement.append(" ON CONFLICT (partition, sort_micros, sort_id) DO NOTHING")
        try await connection.run(statement.query, logger: logger)
    }

    // MARK: - Rows

    /// Inserts or replaces a row in its kind's table (with a post's search columns).
    func upsert(_ record: StoreRecord, key: String, on connection: PostgresConnection) async throws {
        var statement = SQLStatement()
        let table = layout.recordTable(record.kind)
        if case .post(let post) = record {
            statement.append("INSERT INTO \(table) (key, doc, search_text, search_tags) VALUES (")
            statement.bind(key)
            statement.append(", ")
            statement.bind(try PostgresRowCoding.document(record))
            statement.append("::jsonb, ")
            statement.bind(Self.searchText(of: post))
            statement.append(", ")
            statement.bind(Self.searchTags(of: post))
            statement.append("::text[]) ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc, ")
            statement.append("search_text = EXCLUDED.search_text, search_tags = EXCLUDED.search_tags")
        } else {
            statement.append("INSERT INTO \(table) (key, doc) VALUES (")
            statement.bind(key)
            statement.append(", ")
            statement.bind(try PostgresRowCoding.document(record))
            statement.append("::jsonb) ON CONFLICT (key) DO UPDATE SET doc = EXCLUDED.doc")
        }
        try await connection.run(statement.query, logger: logger)
    }

    /// A post's `search_text`: ``PostTextQuery/searchableText(of:)``, which ``PostTextQuery/matches(_:)`` searches. A NUL
    /// (which PostgreSQL text cannot hold) is dropped; no folded query word contains one.
    static func searchText(of post: PostRecord) -> String {
        PostTextQuery.searchableText(of: post).replacingOccurrences(of: "\u{0}", with: "")
    }

    /// A post's `search_tags`: its tags, lowercased, once each.
    static func searchTags(of post: PostRecord) -> [String] {
        Array(Set(post.tags.map { $0.lowercased() })).sorted()
    }
}
