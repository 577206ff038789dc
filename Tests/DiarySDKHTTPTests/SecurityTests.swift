import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

@Suite("Reference server security")
struct SecurityTests {
    /// Every route of docs/openapi.yaml, with `{…}` parameters filled with random ids, and whether it is public.
    static func routes() throws -> [(method: String, path: String, isPublic: Bool)] {
        let url = ReferenceServer.repositoryRoot.appendingPathComponent("docs/openapi.yaml")
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        var routes: [(String, String, Bool)] = []
        var path: String?
        for line in lines {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("components:") {
                path = nil
            } else if let current = path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                var filled = current
                while let open = filled.firstIndex(of: "{"), let close = filled.firstIndex(of: "}") {
                    let name = filled[filled.index(after: open)..<close]
                    filled.replaceSubrange(open...close, with: name == "month" ? "2026-01" : UUID().uuidString.lowercased())
                }
                routes.append((method, filled, false))
            } else if line == "      security: []", let last = routes.popLast() {
                routes.append((last.0, last.1, true))
            }
        }
        return routes
    }

    @Test func everyProtectedRouteRefusesMissingExpiredAndForgedTokens() async throws {
        let fixture = try await ServerFixture.make()
        let routes = try Self.routes()
        #expect(routes.count > 70, "the contract lists every route")
        let session = try #require(try await fixture.store.load())
        let expired = Token.sign(sub: session.userID, exp: Date().addingTimeInterval(-60), secret: ReferenceServer.jwtSecret)
        let forged = Token.sign(sub: session.userID, exp: Date().addingTimeInterval(600), secret: "not the server's secret")
        let unsigned = Token.unsigned(sub: session.userID)
        for route in routes where !route.isPublic {
            let body = route.method == "GET" || route.method == "DELETE" ? nil : Data("{}".utf8)
            for token in [nil, expired, forged, unsigned, session.refreshToken] {
                let reply = try await fixture.control.send(route.method, route.path, body: body, token: token)
                #expect(reply.status == 401, "\(route.method) \(route.path) with \(token == nil ? "no token" : "a bad token") → \(reply.status)")
                #expect(reply.headers["content-type"] == "application/problem+json")
                #expect(!reply.text.contains("correct horse"))
            }
        }
    }

    @Test func anotherUsersPrivateThingsAreNotFoundOrForbidden() async throws {
        let alice = try await ServerFixture.make(nickname: "alice")
        let bob = try await alice.device(nickname: "bob")
        let secret = try await alice.sdk.diaries.write(.init(body: "alice-secret-entry"))
        let book = try await alice.sdk.books.createBook(.init(title: "alice-secret-book"))
        let bobToken = try #require(try await bob.store.load()?.accessToken)
        let expectations: [(String, String, [Int])] = [
            ("GET", "/v1/diaries/\(secret.id.rawValue.uuidString.lowercased())", [404]),
            ("PATCH", "/v1/diaries/\(secret.id.rawValue.uuidString.lowercased())", [403, 404]),
            ("DELETE", "/v1/diaries/\(secret.id.rawValue.uuidString.lowercased())", [403, 404]),
            ("GET", "/v1/diaries/\(secret.id.rawValue.uuidString.lowercased())/comments", [404]),
            ("POST", "/v1/diaries/\(secret.id.rawValue.uuidString.lowercased())/share", [403, 404]),
            ("GET", "/v1/books/\(book.id.rawValue.uuidString.lowercased())", [404]),
            ("GET", "/v1/books/\(book.id.rawValue.uuidString.lowercased())/members", [404]),
            ("DELETE", "/v1/books/\(book.id.rawValue.uuidString.lowercased())", [403, 404]),
            ("GET", "/v1/diaries?bookID=\(book.id.rawValue.uuidString.lowercased())", [403, 404]),
        ]
        for (method, path, allowed) in expectations {
            let body = method == "PATCH" ? Data(#"{"body":"hacked"}"#.utf8) : method == "POST" ? Data(#"{"isAnonymous":false}"#.utf8) : nil
            let reply = try await alice.control.send(method, path, body: body, token: bobToken)
            #expect(allowed.contains(reply.status), "\(method) \(path) → \(reply.status)")
            #expect(!reply.text.contains("alice-secret"), "\(method) \(path) leaked: \(reply.text)")
        }
        #expect(try await alice.sdk.diaries.entry(secret.id).body == "alice-secret-entry", "nothing changed")
    }

    @Test func nothingTheRulesHideLeaksThroughAnyListing() async throws {
        let alice = try await ServerFixture.make(nickname: "alice")
        let bob = try await alice.device(nickname: "bob")
        let carol = try await alice.device(nickname: "carol")
        _ = try await alice.sdk.diaries.write(.init(body: "alice-private-marker"))
        let book = try await alice.sdk.books.createBook(.init(title: "book-marker"))
        _ = try await alice.sdk.diaries.write(.init(body: "alice-book-marker", visibility: .members, bookID: book.id))
        let anonymous = try await alice.sdk.posts.publish(.init(title: "anon-title", body: "anon body", isAnonymous: true))
        _ = try await carol.sdk.posts.publish(.init(title: "carol-post-marker", body: "hello"))
        let carolID = try #require(try await carol.store.load()?.userID)
        let aliceID = try #require(try await alice.store.load()?.userID)
        try await carol.sdk.social.block(try #require(try await bob.store.load()?.userID))
        let bobToken = try #require(try await bob.store.load()?.accessToken)
        let month = LocalDate(Date(), in: TimeZone(identifier: "UTC")!).yearMonth
        let alicePath = aliceID.rawValue.uuidString.lowercased()
        let paths = [
            "/v1/feed", "/v1/posts/search?text=marker", "/v1/posts/search?text=anon", "/v1/users/\(alicePath)/posts",
            "/v1/diaries?authorID=\(alicePath)", "/v1/calendar/\(month.description)?userID=\(alicePath)", "/v1/users?q=a",
            "/v1/users?q=carol", "/v1/posts/\(anonymous.id.rawValue.uuidString.lowercased())", "/v1/notifications",
            "/v1/users/\(alicePath)/likes", "/v1/users/\(carolID.rawValue.uuidString.lowercased())/followers",
        ]
        var anonymousSeen = false
        for path in paths {
            let reply = try await alice.control.send("GET", path, token: bobToken)
            #expect(reply.status == 200 || reply.status == 404, "\(path) → \(reply.status)")
            for hidden in ["alice-private-marker", "alice-book-marker", "book-marker", "carol-post-marker", "carol@", "alice@"] {
                #expect(!reply.text.contains(hidden), "\(path) leaked \(hidden)")
            }
            if reply.text.contains("anon-title") {
                anonymousSeen = true
                #expect(!reply.text.contains(alicePath), "\(path) revealed the anonymous author")
                #expect(!reply.text.contains("\"alice\""), "\(path) revealed the anonymous author's nickname")
            }
        }
        #expect(anonymousSeen, "the anonymous post itself is public")
    }
}

extension ServerFixture {
    /// Another signed-in device in the same world.
    func device(nickname: String) async throws -> ServerFixture {
        let store = InMemorySessionStore()
        let backend = HTTPBackend(configuration: .init(
            baseURL: control.baseURL, tokenStore: store, additionalHeaders: ["X-Diary-World": control.world ?? ""]))
        _ = try await backend.repositories.accounts.signUp(
            .init(email: "\(nickname)@example.com", password: "correct horse battery", nickname: nickname))
        return ServerFixture(control: control, backend: backend, store: store)
    }
}

/// Hand-made JWTs for the security tests.
enum Token {
    static func sign(sub: User.ID, exp: Date, secret: String) -> String {
        let input = header(alg: "HS256") + "." + payload(sub: sub, exp: exp)
        let mac = SHA256.hmac(key: Array(secret.utf8), message: Array(input.utf8))
        return input + "." + base64URL(Data(mac))
    }

    static func unsigned(sub: User.ID) -> String {
        header(alg: "none") + "." + payload(sub: sub, exp: Date().addingTimeInterval(600)) + "."
    }

    private static func header(alg: String) -> String {
        base64URL(Data(#"{"alg":"\#(alg)","typ":"JWT"}"#.utf8))
    }

    private static func payload(sub: User.ID, exp: Date) -> String {
        let claims = #"{"sub":"\#(sub.rawValue.uuidString.lowercased())","sid":"x","typ":"access","jti":"j","iat":0,"exp":\#(Int(exp.timeIntervalSince1970))}"#
        return base64URL(Data(claims.utf8))
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
