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
}
