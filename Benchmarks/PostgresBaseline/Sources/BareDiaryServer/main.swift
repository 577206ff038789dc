// The bare baseline of issue 12's benchmark: four of the reference server's routes (`GET /v1/feed`,
// `GET /v1/posts/search?text=`, `GET /v1/users/{id}/posts`, `POST /v1/posts`) as plain Hummingbird handlers over a
// pooled `PostgresClient` and prepared statements on the reference server's tables (schema `public`), answering
// the same JSON. It reads a database the reference server made and serves the tokens it issued (same secret).
//
//   DIARY_DATABASE_URL=postgres://user@127.0.0.1:port/db DIARY_JWT_SECRET=… BareDiaryServer --port 0
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
// PostgreSQL's usual settings for many short statements, which the reference store's connections start with too
// (PostgresDiaryStorage.Configuration.defaultSessionParameters): no parallel workers, no JIT. (The store also pins
// each prepared statement to its generic plan; this handler leaves that choice to PostgreSQL, as a developer would.)
configuration.options.additionalStartupParameters = [("max_parallel_workers_per_gather", "0"), ("jit", "off")]
let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "bare.postgres"))
let auth = BareAuth(secret: Array(secret.utf8), client: client)

let router = Router()
BareRoutes(client: client, auth: auth).register(on: router)

let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "BareDiaryServer"),
    services: [client],
    onServerRunning: { [port] channel in
        FileHandle.standardOutput.write(Data("BareDiaryServer listening on 127.0.0.1:\(channel.localAddress?.port ?? port)\n".utf8))
    })
try await app.runService()
