import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

/// The v1 wire format as the reference server sends and reads it, in raw JSON over loopback: values with a kind are
/// `{"type": …}` objects (docs/openapi.yaml), and a kind the server does not know is a typed 422.
@Suite("Reference server wire shapes")
struct WireShapeTests {
    @Test func aCommentOnAPostArrivesWithItsTargetAsTypeAndID() async throws {
        let fixture = try await ServerFixture.make(nickname: "wire")
        let post = try await fixture.sdk.posts.publish(.init(title: "Wire", body: "the shape of a target"))
        let comment = try await fixture.sdk.comments.addComment(.init(target: .post(post.id), body: "first"))
        let token = try #require(try await fixture.store.load()?.accessToken)
        let postID = post.id.description

        let reply = try await fixture.control.send("GET", "/v1/posts/\(postID)/comments", token: token)
        #expect(reply.status == 200)
        let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        let items = try #require(object?["items"] as? [[String: Any]])
        let first = try #require(items.first?["comment"] as? [String: Any])
        #expect(first["id"] as? String == comment.id.description)
        let target = try #require(first["target"] as? [String: Any], "\(reply.text)")
        #expect(target.count == 2 && target["type"] as? String == "post" && target["id"] as? String == postID, "\(target)")

        let postReply = try await fixture.control.send("GET", "/v1/posts/\(postID)", token: token)
        let source = (try JSONSerialization.jsonObject(with: postReply.body) as? [String: Any])?["source"] as? [String: Any]
        #expect(source?.count == 1 && source?["type"] as? String == "original", "\(postReply.text)")
    }

    @Test func aCommentWithAnUnknownTargetTypeIsAnInvalidBody() async throws {
        let fixture = try await ServerFixture.make(nickname: "wire")
        let post = try await fixture.sdk.posts.publish(.init(title: "Wire", body: "the shape of a target"))
        let token = try #require(try await fixture.store.load()?.accessToken)
        let body = #"{"target":{"type":"video","id":"\#(post.id.description)"},"body":"hi","isAnonymous":false}"#
        let reply = try await fixture.control.send("POST", "/v1/comments", body: Data(body.utf8), token: token)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.headers["content-type"] == "application/problem+json")
        let problem = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        #expect(problem?["code"] as? String == "invalid_input")
        #expect(problem?["field"] as? String == "body")
        let detail = problem?["detail"] as? String ?? ""
        #expect(detail.contains("target.type") && detail.contains(#"unknown CommentTarget type "video""#), "\(detail)")
        // The old shape is refused the same way.
        let old = #"{"target":{"post":{"_0":"\#(post.id.description)"}},"body":"hi","isAnonymous":false}"#
        let oldReply = try await fixture.control.send("POST", "/v1/comments", body: Data(old.utf8), token: token)
        #expect(oldReply.status == 422, "\(oldReply.text)")
    }

    /// A create with a chosen id retried with its Idempotency-Key replays the first answer; retried without one it
    /// is the 409 that tells a syncing client the create landed; the nil UUID is a 422 naming the field.
    @Test func aCreateWithAChosenIDRetriedIsReplayedOrAConflict() async throws {
        let fixture = try await ServerFixture.make(nickname: "wire")
        let token = try #require(try await fixture.store.load()?.accessToken)
        let id = UUID().uuidString.lowercased()
        let body = Data(#"{"id":"\#(id)","body":"written offline","title":"","tags":[],"images":[],"visibility":"private"}"#.utf8)
        let key = ["Idempotency-Key": UUID().uuidString]
        let first = try await fixture.control.send("POST", "/v1/diaries", body: body, token: token, headers: key)
        #expect(first.status == 201, "\(first.text)")
        #expect((try JSONSerialization.jsonObject(with: first.body) as? [String: Any])?["id"] as? String == id)
        let replayed = try await fixture.control.send("POST", "/v1/diaries", body: body, token: token, headers: key)
        #expect(replayed.status == 201 && replayed.body == first.body, "\(replayed.text)")

        let again = try await fixture.control.send("POST", "/v1/diaries", body: body, token: token)
        #expect(again.status == 409, "\(again.text)")
        let problem = try JSONSerialization.jsonObject(with: again.body) as? [String: Any]
        #expect(problem?["code"] as? String == "conflict")
        #expect(problem?["field"] as? String == "id")
        #expect(problem?["reason"] as? String == "already_used")
        #expect(try await fixture.sdk.diaries.entries(.init(), page: .first()).items.map(\.id.description) == [id])

        let nilID = Data(#"{"id":"00000000-0000-0000-0000-000000000000","body":"x","title":"","tags":[],"images":[],"visibility":"private"}"#.utf8)
        let refused = try await fixture.control.send("POST", "/v1/diaries", body: nilID, token: token)
        #expect(refused.status == 422, "\(refused.text)")
        #expect((try JSONSerialization.jsonObject(with: refused.body) as? [String: Any])?["field"] as? String == "id")
    }
}
