import DiarySDK
import Foundation
import Testing

/// Values with a kind are one object named by its `type` member on the wire (docs/openapi.yaml, docs/REST.md): the
/// exact JSON of every kind, the round trip, and the error for a kind the SDK does not know.
@Suite("Wire format: values with a kind")
struct WireKindTests {
    static let id = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
    static let blogID = "00000000-0000-4000-8000-000000000001"

    private func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONEncoder.diary().encode(value), as: UTF8.self)
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
        try JSONDecoder.diary().decode(type, from: Data(json.utf8))
    }

    /// Encodes to exactly `expected` and decodes back to the same value.
    private func check<Value: Codable & Equatable>(_ value: Value, _ expected: String) throws {
        #expect(try json(value) == expected)
        #expect(try decode(Value.self, expected) == value)
    }

    @Test func commentTargetsAreTypeAndID() throws {
        try check(CommentTarget.post(Post.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"post"}"#)
        try check(CommentTarget.diary(Diary.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"diary"}"#)
    }

    @Test func reportTargetsAreTypeAndID() throws {
        try check(ReportTarget.user(User.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"user"}"#)
        try check(ReportTarget.post(Post.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"post"}"#)
        try check(ReportTarget.comment(Comment.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"comment"}"#)
        try check(ReportTarget.diary(Diary.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"diary"}"#)
    }

    @Test func authoredContentIsTypeAndID() throws {
        try check(AuthoredContent.post(Post.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"post"}"#)
        try check(AuthoredContent.comment(Comment.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"comment"}"#)
    }

    @Test func postSourcesAreTypeWithTheirMembersBesideIt() throws {
        try check(PostSource.original, #"{"type":"original"}"#)
        try check(PostSource.diary(Diary.ID(Self.id)!), #"{"id":"\#(Self.id)","type":"diary"}"#)
        let blog = BlogImport(
            blogID: Blog.ID(Self.blogID)!, guid: "tag:example.com,2026:1", url: URL(string: "https://example.com/1"))
        try check(
            PostSource.blog(blog),
            #"{"blogID":"\#(Self.blogID)","guid":"tag:example.com,2026:1","type":"blog","url":"https://example.com/1"}"#)
        try check(PostSource.blog(BlogImport(blogID: Blog.ID(Self.blogID)!, guid: nil, url: nil)), #"{"blogID":"\#(Self.blogID)","type":"blog"}"#)
    }

    @Test func credentialsAreTypeWithTheirMembersBesideIt() throws {
        try check(
            Credentials.password(email: "a@example.com", password: "secret words"),
            #"{"email":"a@example.com","password":"secret words","type":"password"}"#)
        try check(
            Credentials.identityToken(provider: "apple", token: "abc.def"),
            #"{"provider":"apple","token":"abc.def","type":"identityToken"}"#)
    }

    @Test func pagePositionsAreTypeWithTheirMembersBesideIt() throws {
        try check(PageRequest.Position.cursor(nil), #"{"type":"cursor"}"#)
        try check(PageRequest.Position.cursor(PageCursor(rawValue: "abc")), #"{"cursor":"abc","type":"cursor"}"#)
        try check(PageRequest.Position.number(3), #"{"number":3,"type":"number"}"#)
        try check(PageRequest.number(2, size: 5), #"{"position":{"number":2,"type":"number"},"size":5}"#)
    }

    @Test func entitiesCarryTheirKindsInTheNewShape() throws {
        let date = Date(timeIntervalSince1970: 1_773_144_000.5)
        let comment = Comment(
            id: Comment.ID(Self.blogID)!, target: .post(Post.ID(Self.id)!), author: nil, isMine: false, isAnonymous: true,
            body: "hi", createdAt: date, updatedAt: date)
        try check(
            comment,
            #"{"body":"hi","createdAt":"2026-03-10T12:00:00.500000Z","id":"\#(Self.blogID)","isAnonymous":true,"#
                + #""isMine":false,"target":{"id":"\#(Self.id)","type":"post"},"updatedAt":"2026-03-10T12:00:00.500000Z"}"#)
        let report = Report(
            id: Report.ID(Self.id)!, reporterID: User.ID(Self.blogID)!, target: .comment(Comment.ID(Self.id)!), reason: .spam,
            detail: "", createdAt: date)
        try check(
            report,
            #"{"createdAt":"2026-03-10T12:00:00.500000Z","detail":"","id":"\#(Self.id)","reason":"spam","#
                + #""reporterID":"\#(Self.blogID)","target":{"id":"\#(Self.id)","type":"comment"}}"#)
    }

    @Test(arguments: [
        (#"{"type":"video","id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}"#, "CommentTarget"),
        (#"{"type":"Post","id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}"#, "CommentTarget"),
        (#"{"type":"book","id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}"#, "ReportTarget"),
        (#"{"type":"diary","id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}"#, "AuthoredContent"),
        (#"{"type":"shared"}"#, "PostSource"),
        (#"{"type":"magicLink","email":"a@example.com"}"#, "Credentials"),
        (#"{"type":"offset","number":3}"#, "Position"),
    ])
    func unknownTypesAreRejectedNamingTheTypeAndTheKnownKinds(_ json: String, _ typeName: String) throws {
        let error = try #require(throws: DecodingError.self) { try Self.decodeAny(typeName, json) }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["type"])
        #expect(context.debugDescription.contains("unknown \(typeName) type"))
        #expect(context.debugDescription.contains("expected one of"))
    }

    @Test(arguments: [
        #"{"post":{"_0":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}}"#, #"{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}"#,
        #"{"type":1,"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff"}"#, #"{"type":"post"}"#, #"{"type":"post","id":"x"}"#, #"[]"#,
    ])
    func theOldShapeAndIncompleteObjectsAreRejected(_ json: String) {
        #expect(throws: DecodingError.self) { try decode(CommentTarget.self, json) }
    }

    @Test func theOldPostSourceShapeIsRejected() {
        #expect(throws: DecodingError.self) { try decode(PostSource.self, #"{"original":{}}"#) }
        #expect(throws: DecodingError.self) { try decode(PostSource.self, #"{"type":"blog"}"#) }
        #expect(throws: DecodingError.self) { try decode(Credentials.self, #"{"password":{"email":"a","password":"b"}}"#) }
    }

    private static func decodeAny(_ typeName: String, _ json: String) throws {
        let data = Data(json.utf8)
        let decoder = JSONDecoder.diary()
        switch typeName {
        case "CommentTarget": _ = try decoder.decode(CommentTarget.self, from: data)
        case "ReportTarget": _ = try decoder.decode(ReportTarget.self, from: data)
        case "AuthoredContent": _ = try decoder.decode(AuthoredContent.self, from: data)
        case "PostSource": _ = try decoder.decode(PostSource.self, from: data)
        case "Credentials": _ = try decoder.decode(Credentials.self, from: data)
        default: _ = try decoder.decode(PageRequest.Position.self, from: data)
        }
    }
}
