@_spi(Engine) import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// `GET /v1/changes`: what its query and `Last-Event-ID` header say, and the events it writes.
@Suite("Change stream route")
struct ChangeStreamRouteTests {
    @Test func aStreamFollowsItsFilterAndStartsAfterTheHeaderElseTheQuery() throws {
        let book = UUID()
        let (filter, after) = try DiaryAPI.streamStart(
            filter: "book:\(book.uuidString.lowercased())", after: "m1.4", lastEventID: "m1.7")
        #expect(filter == .book(DiaryBook.ID(rawValue: book)))
        #expect(after == ChangePosition("m1.7"), "a reconnect's Last-Event-ID wins over the query")
        #expect(try DiaryAPI.streamStart(filter: nil, after: "m1.4", lastEventID: "").1 == ChangePosition("m1.4"))
        let fromNow = try DiaryAPI.streamStart(filter: "", after: nil, lastEventID: nil)
        #expect(fromNow.0 == .everything)
        #expect(fromNow.1 == nil)
        #expect(try DiaryAPI.streamStart(filter: "entities:comment,post", after: nil, lastEventID: nil).0
            == .entities([.post, .comment]))
    }

    @Test(arguments: [
        ("filter", "books:1"), ("filter", "book:not-an-id"), ("filter", "entities:post,planet"), ("filter", "nothing"),
        ("after", "m1 4"), ("after", String(repeating: "7", count: ChangePosition.maximumLength + 1)), ("after", "position/1"),
        ("Last-Event-ID", "m1.4\u{0}"), ("Last-Event-ID", "é"),
    ])
    func aMalformedFilterOrPositionIsAProblemNamingIt(field: String, value: String) throws {
        let error = #expect(throws: DiaryError.self) {
            _ = try DiaryAPI.streamStart(
                filter: field == "filter" ? value : nil, after: field == "after" ? value : nil,
                lastEventID: field == "Last-Event-ID" ? value : nil)
        }
        let problem = Problem(try #require(error))
        #expect(problem.code == "invalid_input")
        #expect(problem.status == 422)
        #expect(problem.field == field)
        #expect(problem.reason == "invalid_format")
    }

    @Test func eachEventCarriesItsPositionAsItsID() throws {
        let position = try #require(ChangePosition("pgab12.900.3"))
        let change = DiaryChange(entity: .post, id: UUID(), kind: .deleted, position: position, value: nil)
        let lines = try #require(DiaryAPI.serverSentEvent(.changed(change)))
        #expect(lines.hasPrefix("id: pgab12.900.3\nevent: change\ndata: {"))
        #expect(lines.hasSuffix("}\n\n"))
        #expect(lines.contains(#""position":"pgab12.900.3""#))
        #expect(DiaryAPI.serverSentEvent(.opened(position)) == "id: pgab12.900.3\nevent: open\ndata: {\"position\":\"pgab12.900.3\"}\n\n")
        #expect(DiaryAPI.serverSentEvent(.reloadRequired(position)) == "id: pgab12.900.3\nevent: reload\ndata: {\"position\":\"pgab12.900.3\"}\n\n")
    }
}
