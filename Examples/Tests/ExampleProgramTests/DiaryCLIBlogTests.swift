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
}
