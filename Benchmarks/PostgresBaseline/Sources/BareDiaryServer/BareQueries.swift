import Foundation
import PostgresNIO

/// The tuned SQL a developer would write by hand against the reference server's tables (schema `public`): one
/// statement per page, which pages the same listing table with the same keyset order and the same visibility rule
/// (the viewer's blocks both ways hide named posts, their anonymous blocks hide anonymous ones), and builds each
/// post's JSON in the database, counts and author included, instead of a query per post.
enum BareSQL {
    /// `$1` the viewer's id as text: the users they block or who block them, and those they blocked anonymously.
    static let viewer = """
        v AS (SELECT
            ARRAY(SELECT split_part(key, '|', 2)::uuid FROM public.ix_blocks_from WHERE value = $1
                  UNION SELECT split_part(key, '|', 1)::uuid FROM public.ix_blocks_to WHERE value = $1) AS named,
            ARRAY(SELECT split_part(key, '|', 2)::uuid FROM public.ix_anonymous_blocks_from WHERE value = $1) AS anon)
        """

    /// Whether the viewer (`$2`, uuid) may see content by `author` with `anonymous`.
    static func visible(author: String, anonymous: String) -> String {
        "(\(author) = $2 OR (NOT \(anonymous) AND \(author) <> ALL(v.named)) OR (\(anonymous) AND \(author) <> ALL(v.anon)))"
    }

    /// The posts of the CTE `page` (key, sort_micros, sort_id, author_id, is_anonymous) as the viewer sees them:
    /// `sort_micros`, `sort_id`, and the post's JSON.
    static let posts = """
        SELECT p.sort_micros, p.sort_id, (jsonb_build_object(
            'id', r.doc->'post'->'id', 'isMine', p.author_id = $2, 'isAnonymous', p.is_anonymous,
            'title', r.doc->'post'->'title', 'body', r.doc->'post'->'body', 'tags', r.doc->'post'->'tags', 'images', r.doc->'post'->'images',
            'source', CASE WHEN p.is_anonymous AND p.author_id <> $2 THEN '{"type":"original"}'::jsonb ELSE r.doc->'post'->'source' END,
            'day', r.doc->'post'->'day',
            'likeCount', (SELECT count(*) FROM public.ix_likes_post_id k, v
                          WHERE k.value = p.key AND \(visible(author: "k.author_id", anonymous: "k.is_anonymous"))),
            'commentCount', (SELECT count(*) FROM public.ix_comments_target t JOIN public.row_comment c ON c.key = t.key
                             LEFT JOIN public.row_comment pc ON pc.key = c.doc->'comment'->>'parentID', v
                             WHERE t.value = 'post|' || p.key
                               AND \(visible(author: "(c.doc->'comment'->>'authorID')::uuid", anonymous: "(c.doc->'comment'->>'isAnonymous')::boolean"))
                               AND (pc.key IS NULL
                                    OR \(visible(author: "(pc.doc->'comment'->>'authorID')::uuid", anonymous: "(pc.doc->'comment'->>'isAnonymous')::boolean")))),
            'isLiked', EXISTS (SELECT 1 FROM public.row_like WHERE key = $1 || '|' || p.key),
            'createdAt', r.doc->'post'->'createdAt', 'updatedAt', r.doc->'post'->'updatedAt')
            || CASE WHEN u.key IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('author', jsonb_strip_nulls(jsonb_build_object(
                   'id', u.doc->'user'->'id', 'nickname', u.doc->'user'->'nickname', 'avatar', u.doc->'user'->'avatar'))) END)::text
        FROM page p JOIN public.row_post r ON r.key = p.key
        LEFT JOIN public.row_user u ON u.key = p.author_id::text AND (NOT p.is_anonymous OR p.author_id = $2)
        ORDER BY p.sort_micros DESC, p.sort_id DESC
        """

    static let order = "ORDER BY l.sort_micros DESC, l.sort_id DESC LIMIT $3"
}

/// A row of a page: its position and its JSON.
struct PostRow: Sendable {
    var micros: Int64
    var id: UUID
    var json: String
}

/// `GET /v1/feed`: the first page of the feed listing.
struct FeedPage: PostgresPreparedStatement {
    static let sql = """
        WITH \(BareSQL.viewer), page AS (
            SELECT l.key, l.sort_micros, l.sort_id, l.author_id, l.is_anonymous FROM public.ls_posts_created_at l, v
            WHERE l.partition = '' AND \(BareSQL.visible(author: "l.author_id", anonymous: "l.is_anonymous"))
            \(BareSQL.order))
        \(BareSQL.posts)
        """
    typealias Row = PostRow

    let viewer: UUID
    let limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(viewer.uuidString.lowercased())
        bindings.append(viewer)
        bindings.append(Int64(limit))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostRow {
        let (micros, id, json) = try row.decode((Int64, UUID, String).self)
        return PostRow(micros: micros, id: id, json: json)
    }
}

/// `GET /v1/posts/search?text=…`: the posts in feed order (`row_post`'s feed columns and their index) filtered by
/// words in `search_text` (`$4`, `LIKE` patterns, all of which must match), as the store searches.
struct SearchPage: PostgresPreparedStatement {
    static let sql = """
        WITH \(BareSQL.viewer), page AS (
            SELECT l.key, l.sort_micros, l.sort_id, l.author_id, l.is_anonymous
            FROM public.row_post l, v
            WHERE l.search_text LIKE ALL($4::text[])
              AND \(BareSQL.visible(author: "l.author_id", anonymous: "l.is_anonymous"))
            \(BareSQL.order))
        \(BareSQL.posts)
        """
    typealias Row = PostRow

    let viewer: UUID
    let limit: Int
    let patterns: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(viewer.uuidString.lowercased())
        bindings.append(viewer)
        bindings.append(Int64(limit))
        bindings.append(patterns)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostRow {
        let (micros, id, json) = try row.decode((Int64, UUID, String).self)
        return PostRow(micros: micros, id: id, json: json)
    }
}

/// `GET /v1/users/{id}/posts`: an author's listing; someone else's named posts only. No row for an author the
/// viewer may not see (blocked either way).
struct AuthorPage: PostgresPreparedStatement {
    static let sql = """
        WITH \(BareSQL.viewer), page AS (
            SELECT l.key, l.sort_micros, l.sort_id, l.author_id, l.is_anonymous
            FROM public.ls_posts_by_author_created_at l, v
            WHERE l.partition = $4 AND ($4::uuid = $2 OR ($4::uuid <> ALL(v.named) AND NOT l.is_anonymous))
            \(BareSQL.order))
        \(BareSQL.posts)
        """
    typealias Row = PostRow

    let viewer: UUID
    let limit: Int
    let author: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(viewer.uuidString.lowercased())
        bindings.append(viewer)
        bindings.append(Int64(limit))
        bindings.append(author)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostRow {
        let (micros, id, json) = try row.decode((Int64, UUID, String).self)
        return PostRow(micros: micros, id: id, json: json)
    }
}

/// Whether the viewer may see a user at all (for an author page with no posts: 404 or an empty page).
struct UserVisible: PostgresPreparedStatement {
    static let sql = """
        WITH \(BareSQL.viewer)
        SELECT EXISTS (SELECT 1 FROM public.row_user WHERE key = $3) AND ($3::uuid = $2 OR $3::uuid <> ALL(v.named)) FROM v
        """
    typealias Row = Bool

    let viewer: UUID
    let user: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(viewer.uuidString.lowercased())
        bindings.append(viewer)
        bindings.append(user)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool {
        try row.decode(Bool.self)
    }
}
