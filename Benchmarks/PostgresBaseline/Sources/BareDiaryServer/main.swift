// The bare baseline of issue 12's benchmark: four of the reference server's routes (`GET /v1/feed`,
// `GET /v1/posts/search?text=`, `GET /v1/users/{id}/posts`, `POST /v1/posts`) as plain Hummingbird handlers over a
// pooled `PostgresClient` and prepared statements on the reference server's tables (schema `public`), answering
// the same JSON. It reads a database the reference server made and serves the tokens it issued (same secret).
//
//   DIARY_DATABASE_URL=postgres://user@127.0.0.1:port/db DIARY_JWT_SECRET=… BareDiaryServer --port 0
import Crypto
import Foundation
import Hummingbird
import Logging
import PostgresNIO

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("BareDiaryServer: \(message)\n".utf8))
    exit(2)
}

let environment = ProcessInfo.processInfo.environment
guard let urlText = environment["DIARY_DATABASE_URL"], let url = URLComponents(string: urlText), let host = url.host,
    let user = url.user
else { fail("set DIARY_DATABASE_URL=postgres://user@host:port/database") }
guard let secret = environment["DIARY_JWT_SECRET"] else { fail("set DIARY_JWT_SECRET to the reference server's") }
let arguments = Array(CommandLine.arguments.dropFirst())
let port = arguments.firstIndex(of: "--port").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? 8081

var configuration = PostgresClient.Configuration(
    host: host, port: url.port ?? 5432, username: user, password: url.password,
    database: String(url.path.dropFirst()), tls: .disable)
// The reference server's default pool size (DIARY_DATABASE_MAX_CONNECTIONS).
configuration.options.maximumConnections = Int(environment["DIARY_DATABASE_MAX_CONNECTIONS"] ?? "") ?? 20
let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "bare.postgres"))
let auth = BareAuth(key: SymmetricKey(data: Data(secret.utf8)), client: client)

/// A response with a JSON body.
func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
        status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
}

let unauthenticated = json(#"{"code":"unauthenticated","detail":"sign in"}"#, status: .unauthorized)

/// A cursor page of rows as the engine answers it: `size` items, and a cursor after the last when there are more.
func page(_ rows: [PostRow], size: Int) -> Response {
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

func size(_ request: Request) -> Int {
    min(max(Int(request.uri.queryParameters.get("size") ?? "") ?? 20, 1), 100)
}

func collect<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] {
    var rows: [Statement.Row] = []
    for try await row in try await client.execute(statement) { rows.append(row) }
    return rows
}

let router = Router()
router.get("/v1/feed") { request, _ -> Response in
    guard let viewer = try await auth.userID(authorization: request.headers[.authorization]).flatMap(UUID.init) else {
        return unauthenticated
    }
    let size = size(request)
    return page(try await collect(FeedPage(viewer: viewer, limit: size + 1)), size: size)
}
router.get("/v1/posts/search") { request, _ -> Response in
    guard let viewer = try await auth.userID(authorization: request.headers[.authorization]).flatMap(UUID.init) else {
        return unauthenticated
    }
    let words = (request.uri.queryParameters.get("text") ?? "")
        .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        .split(whereSeparator: \.isWhitespace)
    guard !words.isEmpty else { return json(#"{"code":"invalid_input","field":"text"}"#, status: .unprocessableContent) }
    let patterns = Set(words).map { word in
        "%" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }
    let size = size(request)
    return page(try await collect(SearchPage(viewer: viewer, limit: size + 1, patterns: patterns)), size: size)
}
router.get("/v1/users/:userID/posts") { request, context -> Response in
    guard let viewer = try await auth.userID(authorization: request.headers[.authorization]).flatMap(UUID.init) else {
        return unauthenticated
    }
    guard let author = context.parameters.get("userID").flatMap(UUID.init(uuidString:))?.uuidString.lowercased() else {
        return json(#"{"code":"not_found"}"#, status: .notFound)
    }
    let size = size(request)
    let rows = try await collect(AuthorPage(viewer: viewer, limit: size + 1, author: author))
    if rows.isEmpty, try await collect(UserVisible(viewer: viewer, user: author)).first != true {
        return json(#"{"code":"not_found"}"#, status: .notFound)
    }
    return page(rows, size: size)
}
router.post("/v1/posts") { request, _ -> Response in
    guard let author = try await auth.userID(authorization: request.headers[.authorization]).flatMap(UUID.init) else {
        return unauthenticated
    }
    let body = try await request.body.collect(upTo: 1 << 20)
    guard let draft = try? JSONDecoder().decode(PostDraft.self, from: body), !draft.title.isEmpty,
        draft.title.count <= 300, draft.body.count <= 100_000, (draft.tags ?? []).count <= 20
    else { return json(#"{"code":"invalid_input","field":"body"}"#, status: .unprocessableContent) }
    let tags = draft.tags ?? []
    let micros = Int64(Date().timeIntervalSince1970 * 1_000_000)
    let searchText = (draft.title + "\n" + draft.body + "\n" + tags.joined(separator: " "))
        .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    let post = CreatePost(
        author: author, id: UUID(), isAnonymous: draft.isAnonymous ?? false, title: draft.title, body: draft.body,
        tags: tags, micros: micros, date: WireTime.string(micros: micros), searchText: searchText,
        searchTags: Array(Set(tags.map { $0.lowercased() })).sorted())
    guard let answer = try await collect(post).first else { return unauthenticated }
    return json(answer, status: .created)
}

let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "BareDiaryServer"),
    services: [client],
    onServerRunning: { channel in
        print("BareDiaryServer listening on 127.0.0.1:\(channel.localAddress?.port ?? port)")
        fflush(stdout)
    })
try await app.runService()
