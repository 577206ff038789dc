import DiarySDKConformance
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("LoopbackHTTPServer")
struct LoopbackHTTPServerTests {
    @Test("serves routes over GET and HEAD, answers 404 and 405, and records requests with their headers")
    func servesAndRecords() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/hello", .text("hello", contentType: "text/plain", headers: ["X-Test": "1"]))
        #expect(server.baseURL.host == "127.0.0.1")

        var get = URLRequest(url: server.url("/hello?q=1"))
        get.setValue("yes", forHTTPHeaderField: "X-Probe")
        let (body, response) = try await URLSession.shared.data(for: get)
        #expect(String(decoding: body, as: UTF8.self) == "hello")
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Test") == "1")

        var head = URLRequest(url: server.url("/hello"))
        head.httpMethod = "HEAD"
        let (headBody, headResponse) = try await URLSession.shared.data(for: head)
        #expect(headBody.isEmpty)
        #expect((headResponse as? HTTPURLResponse)?.statusCode == 200)

        let (_, missing) = try await URLSession.shared.data(from: server.url("/nope"))
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)

        var post = URLRequest(url: server.url("/hello"))
        post.httpMethod = "POST"
        post.httpBody = Data("payload".utf8)
        let (_, posted) = try await URLSession.shared.data(for: post)
        #expect((posted as? HTTPURLResponse)?.statusCode == 405)

        #expect(server.hits("/hello") == 3)
        let first = try #require(server.requests.first)
        #expect(first.query == "q=1")
        #expect(first.header("x-probe") == "yes")
        #expect(server.requests.last?.body == Data("payload".utf8))
    }

    @Test("stop closes the port, and stopping twice is harmless")
    func stopClosesThePort() async throws {
        let server = try LoopbackHTTPServer()
        let url = server.url("/")
        server.stop()
        server.stop()
        await #expect(throws: (any Error).self) { _ = try await URLSession.shared.data(from: url) }
    }
}
