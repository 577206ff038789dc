@_spi(Engine) import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

/// What the reference server reads, how much, and what it answers for input it cannot use: each over loopback
/// against the real server, which must still be alive afterwards.
@Suite("Reference server limits and malformed input")
struct ServerLimitTests {
    static let png = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!

    /// Multipart uploads of every malformed shape, as (Content-Type, body).
    static let malformedMultipart: [(String, String)] = [
        ("multipart/form-data; boundary=", "--\r\nContent-Type: image/png\r\n\r\nx\r\n----\r\n"),
        ("multipart/form-data; boundary=\"\"", "--\r\n\r\n"),
        ("multipart/form-data; boundary=;", "--;\r\n"),
        ("multipart/form-data;", "--x\r\n"),
        ("multipart/form-data", ""),
        ("multipart/form-data; boundary=\(String(repeating: "b", count: 71))", "--b\r\n"),
        ("multipart/form-data; boundary=x", ""),
        ("multipart/form-data; boundary=x", "--x"),
        ("multipart/form-data; boundary=x", "--x--\r\n"),
        ("multipart/form-data; boundary=x", "--x\r\nContent-Type: image/png\r\n\r\nnot terminated"),
        ("multipart/form-data; boundary=x", "--x\r\nno blank line--x--\r\n"),
        ("multipart/form-data; boundary=x", "--x\r\nContent-Type: image/png\r\n\r\n<html>\r\n--x--\r\n"),
        ("multipart/form-data; boundary=x", String(repeating: "--x\r\nContent-Type: image/png\r\n\r\nz\r\n", count: 6) + "--x--"),
    ]

    @Test func malformedMultipartAnswersAProblemAndTheServerStaysUp() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()?.accessToken)
        for (type, body) in Self.malformedMultipart {
            let reply = try await fixture.control.send(
                "POST", "/v1/attachments", body: Data(body.utf8), token: token, headers: ["Content-Type": type])
            #expect((400..<500).contains(reply.status), "\(type) → \(reply.status)")
            #expect(reply.headers["content-type"] == "application/problem+json", "\(type)")
        }
        let health = try await fixture.control.send("GET", "/health")
        #expect(health.status == 200, "the server is still alive")
    }

    @Test func anImportBatchOverItsLimitIsRefusedWhole() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()?.accessToken)
        let blog = try await fixture.sdk.blogs.register(
            .init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "https://b.example/rss")!))
        func batch(_ count: Int) -> Data {
            let items = (0..<count).map {
                #"{"guid":"g\#($0)","title":"T\#($0)","body":"B","tags":[],"publishedAt":"2026-03-01T00:00:00Z"}"#
            }
            return Data(#"{"items":[\#(items.joined(separator: ","))]}"#.utf8)
        }
        let path = "/v1/blogs/\(blog.id.description)/items/batch"
        let tooMany = try await fixture.control.send("POST", path, body: batch(ImportedItem.maximumBatchSize + 1), token: token)
        #expect(tooMany.status == 422)
        #expect(tooMany.text.contains(#""field":"items""#), "\(tooMany.text)")
        #expect(try await fixture.sdk.posts.posts(by: nil, page: .first()).items.isEmpty, "nothing of it was imported")
        let full = try await fixture.control.send("POST", path, body: batch(ImportedItem.maximumBatchSize), token: token)
        #expect(full.status == 200)
        #expect(full.text.components(separatedBy: #""outcome":"created""#).count - 1 == ImportedItem.maximumBatchSize)
    }

    @Test func anOversizedBodyIsRefusedBeforeItIsRead() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()?.accessToken)
        let port = try #require(fixture.control.baseURL.port)
        let world = fixture.control.world ?? ""
        func announce(_ path: String, length: Int, token: String?) async throws -> RawHTTPConnection.Response {
            try await offPool {
                let connection = try RawHTTPConnection(port: port)
                let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
                connection.send(
                    "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Diary-World: \(world)\r\n\(authorization)"
                        + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n")
                return try connection.readResponse()
            }
        }
        let fortySevenMegabytes = 47 * 1024 * 1024
        let unauthenticated = try await announce("/v1/diaries", length: fortySevenMegabytes, token: nil)
        #expect(unauthenticated.status == 401, "answered without waiting for the body that was never sent")
        #expect(unauthenticated.headers["content-type"] == "application/problem+json")
        let signedIn = try await announce("/v1/diaries", length: fortySevenMegabytes, token: token)
        #expect(signedIn.status == 413)
        #expect(signedIn.headers["content-type"] == "application/problem+json")
        #expect(!signedIn.text.contains("NIO"), "no internal type names: \(signedIn.text)")
        let signIn = try await announce("/v1/auth/sign-in", length: fortySevenMegabytes, token: nil)
        #expect(signIn.status == 413)

        let megabyte = Data(#"{"email":"a@example.com","password":""#.utf8) + Data(repeating: 0x61, count: 1024 * 1024)
            + Data(#""}"#.utf8)
        let signInMegabyte = try await fixture.control.send("POST", "/v1/auth/sign-in", body: megabyte)
        #expect(signInMegabyte.status == 413)
        #expect(signInMegabyte.headers["content-type"] == "application/problem+json")
        let problem = try JSONSerialization.jsonObject(with: signInMegabyte.body) as? [String: Any]
        #expect(problem?["status"] as? Int == 413)
        #expect(problem?["field"] as? String == "body")

        let chunked = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            connection.send(
                "POST /v1/auth/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Diary-World: \(world)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "a", count: 4096)
            for _ in 0..<32 { connection.send("1000\r\n\(chunk)\r\n") }
            connection.send("0\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(chunked.status == 413, "a body without a length is cut off at the limit")
        #expect(chunked.headers["content-type"] == "application/problem+json")
        #expect(try await fixture.control.send("GET", "/health").status == 200)
    }

    @Test func anOversizedRequestTargetOrHeaderBlockAnswersAProblem() async throws {
        let fixture = try await ServerFixture.make()
        let port = try #require(fixture.control.baseURL.port)
        let longQuery = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            connection.send("GET /v1/posts/search?text=\(String(repeating: "q", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(longQuery.status == 414)
        #expect(longQuery.headers["content-type"] == "application/problem+json")
        let longHeader = try await offPool {
            let connection = try RawHTTPConnection(port: port)
            connection.send("GET /v1/feed HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "h", count: 20_000))\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(longHeader.status == 431)
        #expect(longHeader.headers["content-type"] == "application/problem+json")
        #expect(try await fixture.control.send("GET", "/health").status == 200)
    }

    @Test func jsonRoutesRefuseABodyOfAnotherType() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()?.accessToken)
        let credentials = Data(#"{"email":"alice@example.com","password":"correct horse battery"}"#.utf8)
        let asText = try await fixture.control.send(
            "POST", "/v1/auth/sign-in", body: credentials, headers: ["Content-Type": "text/plain"])
        #expect(asText.status == 415)
        #expect(asText.headers["content-type"] == "application/problem+json")
        let draft = try JSONEncoder.diary().encode(DiaryDraft(body: "typed"))
        let asForm = try await fixture.control.send(
            "POST", "/v1/diaries", body: draft, token: token, headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(asForm.status == 415)
        let withCharset = try await fixture.control.send(
            "POST", "/v1/diaries", body: draft, token: token, headers: ["Content-Type": "application/json; charset=utf-8"])
        #expect(withCharset.status == 201, "JSON with parameters is JSON")
        let uploadAsJSON = try await fixture.control.send(
            "POST", "/v1/attachments", body: Self.png, token: token, headers: ["Content-Type": "application/json"])
        #expect(uploadAsJSON.status == 415, "an upload is an image or multipart")
    }

    @Test func imagesAreServedWithTheirRealTypeAndNoSniffing() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()?.accessToken)
        let uploaded = try await fixture.control.send(
            "POST", "/v1/attachments", body: Self.png, token: token, headers: ["Content-Type": "image/png"])
        #expect(uploaded.status == 201)
        let reference = try uploaded.json(ImageReference.self)
        let served = try await fixture.control.send("GET", "/v1/attachments/\(reference.id.rawValue.uuidString.lowercased())", token: token)
        #expect(served.status == 200)
        #expect(served.headers["content-type"] == "image/png")
        #expect(served.headers["x-content-type-options"] == "nosniff")
        #expect(served.body == Self.png)
        let html = try await fixture.control.send(
            "POST", "/v1/attachments", body: Data("<html><script>alert(1)</script>".utf8), token: token,
            headers: ["Content-Type": "image/png"])
        #expect(html.status == 422, "a file that is not an image of its declared type is refused")
        let mislabelled = try await fixture.control.send(
            "POST", "/v1/attachments", body: Self.png, token: token, headers: ["Content-Type": "image/jpeg"])
        #expect(mislabelled.status == 422)
    }

    @Test func anUnknownRouteAnswersAProblem() async throws {
        let fixture = try await ServerFixture.make()
        let reply = try await fixture.control.send("GET", "/v1/no-such-route")
        #expect(reply.status == 404)
        #expect(reply.headers["content-type"] == "application/problem+json")
    }

    @Test func changeEventsCarryLowerCaseIDs() async throws {
        let fixture = try await ServerFixture.make()
        let token = try #require(try await fixture.store.load()?.accessToken)
        let port = try #require(fixture.control.baseURL.port)
        let world = fixture.control.world ?? ""
        let connection = try RawHTTPConnection(port: port)
        let subscribed = try await offPool {
            connection.send(
                "GET /v1/changes HTTP/1.1\r\nHost: x\r\nX-Diary-World: \(world)\r\nAuthorization: Bearer \(token)\r\n\r\n")
            return connection.read(untilAnyOf: ["event: open"])
        }
        #expect(String(decoding: subscribed, as: UTF8.self).contains("event: open"), "the stream opened")
        let entry = try await fixture.sdk.diaries.write(.init(body: "a change"))
        let lower = entry.id.rawValue.uuidString.lowercased()
        let upper = entry.id.rawValue.uuidString.uppercased()
        let text = try await offPool {
            String(decoding: connection.read(untilAnyOf: [lower, upper]), as: UTF8.self)
        }
        #expect(text.contains("event: change"))
        #expect(text.contains(#""id":"\#(lower)""#), "the change names the entry in lower case: \(text)")
        #expect(!text.contains(upper))
    }
}
