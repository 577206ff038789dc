import Foundation
import Hummingbird
import PostgresNIO

/// The four routes: authenticate, run one prepared statement, answer its JSON.
struct BareRoutes: Sendable {
    let client: PostgresClient
    let auth: BareAuth

    func register(on router: Router<BasicRequestContext>) {
        router.get("/v1/feed") { request, _ in try await feed(request) }
        router.get("/v1/posts/search") { request, _ in try await search(request) }
        router.get("/v1/users/:userID/posts") { request, context in
            try await posts(request, author: context.parameters.get("userID"))
        }
        router.post("/v1/posts") { request, _ in try await create(request) }
    }

    func feed(_ request: Request) async throws -> Response {
        guard let viewer = try await viewer(request) else { return Self.unauthenticated }
        let size = Self.size(request)
        return Self.page(try await collect(FeedPage(viewer: viewer, limit: size + 1)), size: size)
    }

    func search(_ request: Request) async throws -> Response {
        guard let viewer = try await viewer(request) else { return Self.unauthenticated }
        let words = (request.uri.queryParameters.get("text") ?? "")
            .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else {
            return Self.json(#"{"code":"invalid_input","field":"text"}"#, status: .unprocessableContent)
        }
        let patterns = Set(words).map { word in
            "%" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
        }
        let size = Self.size(request)
        return Self.page(try await collect(SearchPage(viewer: viewer, limit: size + 1, patterns: patterns)), size: size)
    }

    func posts(_ request: Request, author: String?) async throws -> Response {
        guard let viewer = try await viewer(request) else { return Self.unauthenticated }
        guard let author = author.flatMap(UUID.init(uuidString:))?.uuidString.lowercased() else {
            return Self.json(#"{"code":"not_found"}"#, status: .notFound)
        }
        let size = Self.size(request)
        let rows = try await collect(AuthorPage(viewer: viewer, limit: size + 1, author: author))
        if rows.isEmpty, try await collect(UserVisible(viewer: viewer, user: author)).first != true {
            return Self.json(#"{"code":"not_found"}"#, status: .notFound)
        }
        return Self.page(rows, size: size)
    }

    func create(_ request: Request) async throws -> Response {
        guard let author = try await viewer(request) else { return Self.unauthenticated }
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let draft = try? JSONDecoder().decode(PostDraft.self, from: Data(body.readableBytesView)),
            !draft.title.isEmpty, draft.title.count <= 300, draft.body.count <= 100_000, (draft.tags ?? []).count <= 20
        else { return Self.json(#"{"code":"invalid_input","field":"body"}"#, status: .unprocessableContent) }
        let tags = draft.tags ?? []
        let micros = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let searchText = (draft.title + "\n" + draft.body + "\n" + tags.joined(separator: " "))
            .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        let post = CreatePost(
            author: author, id: UUID(), isAnonymous: draft.isAnonymous ?? false, title: draft.title, body: draft.body,
            tags: tags, micros: micros, date: WireTime.string(micros: micros), searchText: searchText,
            searchTags: Array(Set(tags.map { $0.lowercased() })).sorted())
        guard let answer = try await collect(post).first else { return Self.unauthenticated }
        return Self.json(answer, status: .created)
    }

    // MARK: - Helpers

    private func viewer(_ request: Request) async throws -> UUID? {
        try await auth.userID(authorization: request.headers[.authorization]).flatMap(UUID.init(uuidString:))
    }

    private func collect<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        for try await row in try await client.execute(statement) { rows.append(row) }
        return rows
    }

    /// A response with a JSON body.
    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static var unauthenticated: Response {
        json(#"{"code":"unauthenticated","detail":"sign in"}"#, status: .unauthorized)
    }

    /// A cursor page of rows as the engine answers it: `size` items, and a cursor after the last when there are more.
    static func page(_ rows: [PostRow], size: Int) -> Response {
        let items = rows.prefix(size)
        var text = "{\"items\":[" + items.map(\.json).joined(separator: ",") + "]"
        let hasMore = rows.count > size
        if hasMore, let last = items.last {
            let cursor = Data("v1:\(last.micros):\(last.id.uuidString.lowercased())".utf8).base64EncodedString()
            text += ",\"nextCursor\":\"\(cursor)\""
        }
        text += ",\"isLastPage\":\(!hasMore),\"size\":\(size)}"
        return json(text)
    }

    static func size(_ request: Request) -> Int {
        min(max(Int(request.uri.queryParameters.get("size") ?? "") ?? 20, 1), 100)
    }
}
