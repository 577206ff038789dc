@_spi(Storage) import DiarySDK
import Foundation

/// Text search over posts, in the feed's order and with its filter, on `row_post` alone: each post row carries its
/// feed position and authorship (migration `0005_post_feed_columns`), so a search walks `row_post_feed` and tests each
/// post once.
///
/// A word matches as `search_text LIKE '%word%'` (its `%`, `_` and `\` escaped), answered by the trigram GIN index
/// on `search_text`; tags as `search_tags @> $tags`, by the GIN index on `search_tags`. This is
/// ``PostTextQuery/matches(_:)``: every folded word a substring of ``PostTextQuery/searchableText(of:)``, every tag one of
/// the post's lowercased tags.
extension PostgresReader {
    func searchPosts(
        _ query: PostTextQuery, from position: ListingPosition, limit: Int, where filter: RowFilter
    ) async throws -> [PostRecord] {
        guard limit > 0, var statement = try searchStatement(query, selecting: "r.doc::text", where: filter) else {
            return []
        }
        statement.appendPosition(position, descending: true, limit: limit, alias: "r")
        return try await rows(of: StorageSchema.posts, statement)
    }

    func countPosts(matching query: PostTextQuery, where filter: RowFilter) async throws -> Int {
        guard let statement = try searchStatement(query, selecting: "count(*)", where: filter) else { return 0 }
        return try await count(statement)
    }

    /// `SELECT <columns> FROM` the feed joined to the posts, with the query's conditions and the filter; `nil` when
    /// nothing can match (a word or tag with a NUL, which no stored text holds).
    private func searchStatement(_ query: PostTextQuery, selecting columns: String, where filter: RowFilter) throws -> SQLStatement? {
        guard !query.words.contains(where: { $0.contains("\u{0}") }), !query.tags.contains(where: { $0.contains("\u{0}") }) else {
            return nil
        }
        // Planned for its words every time, its values written into its text (``SQLStatement/init(plannedForItsValues:)``):
        // the best plan depends on how common the words are (a common word: walk the feed in order and stop at the
        // page's end, ~1 ms at 10,000 posts; a rare one: the trigram index), which a plan made without the values
        // cannot know. Prepared, PostgreSQL switched some connections to that plan (the trigram index for any word,
        // 12–14 ms for a word in 10 % of the posts) once statistics moved, and search fell from 0.8× the bare handler
        // to 0.33× (docs/PERFORMANCE.md). Its page size and position are literals too, so the plan knows how much of
        // the feed a page reads. Unprepared, the statement texts are not kept either, so a search of many words
        // bounds nothing.
        var statement = SQLStatement(
            plannedForItsValues: "SELECT \(columns) FROM \(layout.recordTable(.post)) r WHERE true")
        for word in Set(query.words) where !word.isEmpty {
            statement.append(" AND r.search_text LIKE ")
            statement.bind("%" + Self.escapedForLike(word) + "%")
        }
        if !query.tags.isEmpty {
            statement.append(" AND r.search_tags @> ")
            statement.bind(Array(Set(query.tags)))
            statement.append("::text[]")
        }
        filter.appendSQL(to: &statement, alias: "r")
        return statement
    }

    /// A word as a `LIKE` pattern that matches it literally: `\`, `%` and `_` escaped with `\` (the default escape).
    static func escapedForLike(_ word: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(word.utf8.count)
        for scalar in word.unicodeScalars {
            if scalar == "\\" || scalar == "%" || scalar == "_" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(scalar)
        }
        return escaped
    }
}
