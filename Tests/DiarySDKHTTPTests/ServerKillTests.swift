import DiarySDK
import Foundation
import Testing

/// A server on PostgreSQL killed with SIGKILL while writes are in flight: after a restart on the same schema every
/// write it acknowledged is there, and no write is there in part.
@Suite("A server on PostgreSQL killed mid-write",
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct ServerKillTests {
    /// What the writers saw.
    struct Acknowledged: Sendable {
        var posts: [String: String] = [:]
        var comments: Set<String> = []
        var failures = 0
    }

    @Test func everyAcknowledgedWriteSurvivesASigkillAndNoneIsHalfWritten() async throws {
        try await PostgresReferenceServer.worlds.exclusively {
            let schema = PostgresReferenceServer.freshSchema()
            let server = try await PostgresReferenceServer.start(schema: schema, extraArguments: ["--auth-rate-limit", "0"])
            let client = TestClient(baseURL: server.baseURL)
            let token = try await SessionFixture.signUp(client, "writer").access
            let seed = try Self.id(try await client.send("POST", "/v1/posts", body: Self.post("seed"), token: token))

            // Sixteen writers send posts and comments back to back; once 60 are acknowledged the server is killed.
            let acknowledged = Locked(Acknowledged())
            let killed = Locked(false)
            let lanes = Task {
                await withTaskGroup(of: Void.self) { group in
                    for lane in 0..<16 {
                        group.addTask {
                            for number in 0..<500 where !killed.current {
                                let title = "w\(lane)-\(number)"
                                let isComment = number.isMultiple(of: 3)
                                do {
                                    let reply: TestClient.Reply
                                    if isComment {
                                        reply = try await client.send("POST", "/v1/comments", body: Self.comment(on: seed, title), token: token)
                                    } else {
                                        reply = try await client.send("POST", "/v1/posts", body: Self.post(title), token: token)
                                    }
                                    guard reply.status == 201 else {
                                        acknowledged.withLock { $0.failures += 1 }
                                        continue
                                    }
                                    let id = try Self.id(reply)
                                    acknowledged.withLock {
                                        if isComment { $0.comments.insert(id) } else { $0.posts[id] = title }
                                    }
                                } catch {
                                    acknowledged.withLock { $0.failures += 1 }
                                }
                            }
                        }
                    }
                }
            }
            for _ in 0..<3000 {
                let done = acknowledged.withLock { $0.posts.count + $0.comments.count }
                if done >= 60 { break }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            try await server.killAbruptly()
            killed.withLock { $0 = true }
            await lanes.value
            let seen = acknowledged.current
            #expect(seen.posts.count + seen.comments.count >= 60)
            #expect(seen.failures >= 1, "some writes were in flight when the server died")

            let restarted = try await PostgresReferenceServer.start(schema: schema)
            defer { restarted.stop() }
            let after = TestClient(baseURL: restarted.baseURL)

            // Every acknowledged post is there, whole, in both listings that hold it and in search.
            let mine = try await Self.listing(after, "/v1/me/posts", token: token)
            let feed = try await Self.listing(after, "/v1/feed", token: token)
            let tagged = try await Self.listing(after, "/v1/posts/search?tag=kill", token: token)
            for (id, title) in seen.posts {
                #expect(mine[id] == title, "acknowledged post \(title) after the restart: \(mine[id] ?? "missing")")
            }
            #expect(Set(mine.keys) == Set(feed.keys), "the author's listing and the feed agree")
            #expect(Set(mine.keys) == Set(tagged.keys), "search finds exactly the stored posts (the seed too)")
            for (id, title) in mine where id != seed {
                let single = try await after.send("GET", "/v1/posts/\(id)", token: token)
                #expect(single.status == 200)
                #expect(single.text.contains("\"body\":\"body of \(title)\""), "\(single.text)")
            }

            // Every acknowledged comment is there, and the count agrees with the comments listed.
            let threads = try await Self.commentIDs(after, on: seed, token: token)
            #expect(seen.comments.isSubset(of: threads), "missing: \(seen.comments.subtracting(threads))")
            let seedPost = try await after.send("GET", "/v1/posts/\(seed)", token: token)
            let count = (try JSONSerialization.jsonObject(with: seedPost.body) as? [String: Any])?["commentCount"] as? Int
            #expect(count == threads.count)
        }
    }

    // MARK: - Helpers

    static func post(_ title: String) -> Data {
        Data(#"{"title":"\#(title)","body":"body of \#(title)","tags":["kill"],"images":[],"isAnonymous":false}"#.utf8)
    }

    static func comment(on postID: String, _ text: String) -> Data {
        Data(#"{"target":{"type":"post","id":"\#(postID)"},"body":"comment \#(text)","isAnonymous":false}"#.utf8)
    }

    static func id(_ reply: TestClient.Reply) throws -> String {
        guard let id = (try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["id"] as? String else {
            throw ServerError("no id in \(reply.status) \(reply.text)")
        }
        return id
    }

    /// Every post of a cursor-paged listing, by id, with its title.
    static func listing(_ client: TestClient, _ path: String, token: String) async throws -> [String: String] {
        var posts: [String: String] = [:]
        var cursor: String?
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            let page = try await client.send(
                "GET", path + separator + "size=100" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
            guard page.status == 200, let object = try JSONSerialization.jsonObject(with: page.body) as? [String: Any],
                let items = object["items"] as? [[String: Any]]
            else { throw ServerError("\(path) answered \(page.status): \(page.text)") }
            for item in items {
                if let id = item["id"] as? String { posts[id] = item["title"] as? String }
            }
            cursor = (object["nextCursor"] as? String).flatMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }
        } while cursor != nil
        return posts
    }

    /// Every comment (and reply) on a post, by id.
    static func commentIDs(_ client: TestClient, on postID: String, token: String) async throws -> Set<String> {
        var ids: Set<String> = []
        var cursor: String?
        repeat {
            let page = try await client.send(
                "GET", "/v1/posts/\(postID)/comments?size=100" + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
            guard page.status == 200, let object = try JSONSerialization.jsonObject(with: page.body) as? [String: Any],
                let items = object["items"] as? [[String: Any]]
            else { throw ServerError("comments answered \(page.status): \(page.text)") }
            for thread in items {
                if let id = (thread["comment"] as? [String: Any])?["id"] as? String { ids.insert(id) }
                for reply in thread["replies"] as? [[String: Any]] ?? [] {
                    if let id = reply["id"] as? String { ids.insert(id) }
                }
            }
            cursor = (object["nextCursor"] as? String).flatMap { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }
        } while cursor != nil
        return ids
    }
}
