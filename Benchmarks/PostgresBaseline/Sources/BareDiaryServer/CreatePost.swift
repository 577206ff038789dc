import Foundation
import PostgresNIO

/// `POST /v1/posts`, in one statement: the post row (with the search columns the store keeps), its entries in the
/// feed and author listings and in the author, author-month and tag indices (every entry the store writes for it),
/// and the answer's JSON built from the author's row. The day is the author's local day (their time zone setting),
/// as the engine computes it. Unlike the store it writes no change-log
/// row (the reference server's `GET /v1/changes` reads it) and runs at READ COMMITTED, not SERIALIZABLE.
struct CreatePost: PostgresPreparedStatement {
    static let sql = """
        WITH u AS (SELECT doc->'user' AS doc FROM public.row_user WHERE key = $1),
        d AS (SELECT jsonb_build_object('id', $3::text, 'authorID', $1::text, 'isAnonymous', $4::boolean,
                'title', $5::text, 'body', $6::text, 'tags', to_jsonb($7::text[]), 'images', '[]'::jsonb,
                'source', '{"type":"original"}'::jsonb,
                'day', to_char(lt.moment, 'YYYY-MM-DD'), 'createdAt', $9::text, 'updatedAt', $9::text) AS doc,
                $1 || '|' || extract(year FROM lt.moment)::int || '-' || extract(month FROM lt.moment)::int AS month,
                u.doc AS author
              FROM u, LATERAL (SELECT timezone(coalesce(u.doc->'settings'->>'timeZoneIdentifier', 'UTC'),
                                              to_timestamp($8::bigint / 1000000.0)) AS moment) AS lt),
        p AS (INSERT INTO public.row_post (key, doc, search_text, search_tags, sort_micros, sort_id, author_id, is_anonymous)
              SELECT $3, jsonb_build_object('post', d.doc), $10, $11::text[], $8, $3::uuid, $2, $4 FROM d RETURNING key),
        f AS (INSERT INTO public.ls_posts_created_at (partition, sort_micros, sort_id, key, author_id, is_anonymous)
              SELECT '', $8, $3::uuid, p.key, $2, $4 FROM p),
        a AS (INSERT INTO public.ls_posts_by_author_created_at (partition, sort_micros, sort_id, key, author_id, is_anonymous)
              SELECT $1, $8, $3::uuid, p.key, $2, $4 FROM p),
        i AS (INSERT INTO public.ix_posts_author_id (value, key) SELECT $1, p.key FROM p),
        m AS (INSERT INTO public.ix_posts_author_month (value, key) SELECT d.month, p.key FROM p, d),
        t AS (INSERT INTO public.ix_posts_tags (value, key) SELECT tag, p.key FROM p, unnest($11::text[]) AS tag)
        SELECT ((d.doc - 'authorID') || jsonb_build_object('isMine', true, 'likeCount', 0, 'commentCount', 0,
                'isLiked', false, 'author', jsonb_strip_nulls(jsonb_build_object(
                    'id', d.author->'id', 'nickname', d.author->'nickname', 'avatar', d.author->'avatar'))))::text
        FROM d
        """
    typealias Row = String

    let author: UUID
    let id: UUID
    let isAnonymous: Bool
    let title: String
    let body: String
    let tags: [String]
    let micros: Int64
    let date: String
    let searchText: String
    let searchTags: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(author.uuidString.lowercased())
        bindings.append(author)
        bindings.append(id.uuidString.lowercased())
        bindings.append(isAnonymous)
        bindings.append(title)
        bindings.append(body)
        bindings.append(tags)
        bindings.append(micros)
        bindings.append(date)
        bindings.append(searchText)
        bindings.append(searchTags)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String {
        try row.decode(String.self)
    }
}

/// The body of `POST /v1/posts`.
struct PostDraft: Decodable {
    var title: String
    var body: String
    var tags: [String]?
    var isAnonymous: Bool?
}

enum WireTime {
    /// RFC 3339 in UTC with microseconds, as the wire writes dates.
    static func string(micros: Int64) -> String {
        var seconds = time_t(micros / 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let fraction = String(micros % 1_000_000)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + String(repeating: "0", count: 6 - fraction.count) + fraction + "Z"
    }
}
