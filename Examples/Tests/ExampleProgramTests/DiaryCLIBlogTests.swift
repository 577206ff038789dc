import DiarySDKConformance
import Foundation
import Testing

/// `diary blog` against real HTTP: a loopback server in this process serves (or refuses) the feeds.
@Suite("diary blogs")
struct DiaryCLIBlogTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-cli-\(UUID().uuidString)")

    func launch(_ arguments: String..., environment: [String: String] = [:]) throws -> (status: Int32, output: String, errors: String) {
        try ExampleProgramTests.launch("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path].merging(environment) { $1 })
    }

    @Test func anAddressThatAnswers404SaysHTTP404() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        _ = try launch("signup", "--email", "blog@example.com", "--password", "password123", "--nickname", "blogger")
        let address = server.url("/missing/feed.xml").absoluteString
        let result = try launch("blog", "add", address)
        #expect(result.status == 2)
        #expect(result.errors.contains("\(address) answered HTTP 404"), "\(result.errors)")
        #expect(server.hits("/missing/feed.xml") == 1)
        #expect(try launch("blog", "list").output.contains("No blogs yet"))
    }

    /// An RSS 2.0 document with `count` items, one a day from 2026-01-01.
    static func feed(items count: Int) -> String {
        let items = (1...count).map { index in
            let day = String(format: "%02d", (index - 1) % 28 + 1)
            let month = ["Jan", "Feb"][(index - 1) / 28]
            return """
                <item><title>Post \(index)</title><link>https://duck.example/\(index)</link><guid>post-\(index)</guid>\
                <pubDate>Thu, \(day) \(month) 2026 09:00:00 GMT</pubDate><description>Text \(index)</description></item>
                """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Duck blog</title>\
            <link>https://duck.example/</link>\(items.joined())</channel></rss>
            """
    }

    @Test func syncingOverTheServerImportsABatchPerRequest() async throws {
        let serverData = FileManager.default.temporaryDirectory.appendingPathComponent("diary-server-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: serverData)
        }
        let feeds = try LoopbackHTTPServer()
        defer { feeds.stop() }
        feeds.route("/feed.xml", .text(Self.feed(items: 47), contentType: "application/rss+xml"))
        let server = try await RunningServer.start(dataDirectory: serverData)
        defer { server.stop() }
        let remote = ["DIARY_SERVER": server.url]
        _ = try launch("signup", "--email", "sync@example.com", "--password", "password123", "--nickname", "sync", environment: remote)
        let added = try launch("blog", "add", feeds.url("/feed.xml").absoluteString, environment: remote)
        #expect(added.status == 0, "\(added.errors)")
        let synced = try launch("blog", "sync", environment: remote)
        #expect(synced.status == 0, "\(synced.errors)")
        #expect(synced.output.contains("Duck blog: 47 new, 0 updated, 0 unchanged"), "\(synced.output)")
        #expect(try launch("feed", "--size", "50", environment: remote).output.contains("Post 47"))

        // The server logs one line per request: the 47 items came in one batch request, none one by one.
        let log = try String(contentsOf: server.log, encoding: .utf8).split(separator: "\n")
        func requests(_ route: String) -> Int {
            log.filter { $0.contains(" method=POST ") && $0.contains(" route=\(route) ") }.count
        }
        #expect(requests("/v1/blogs/{blogID}/items/batch") == 1)
        #expect(requests("/v1/blogs/{blogID}/items") == 0)

        // A second sync sends the feed again (the loopback server has no validators): one more batch, all unchanged.
        let again = try launch("blog", "sync", environment: remote)
        #expect(again.output.contains("0 new, 0 updated, 47 unchanged"), "\(again.output)")
        let logAgain = try String(contentsOf: server.log, encoding: .utf8)
        #expect(logAgain.components(separatedBy: " route=/v1/blogs/{blogID}/items/batch ").count - 1 == 2)
    }
}
