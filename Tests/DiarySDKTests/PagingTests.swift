import DiarySDK
import Foundation
import Testing

@Suite("Paging")
struct PagingTests {
    actor Source {
        var items: [Int]
        init(_ items: [Int]) { self.items = items }

        func page(_ request: PageRequest) throws -> Page<Int> {
            guard case .number(let number) = request.position else { throw DiaryError.invalid("page", .notAllowed, "numbers only") }
            let start = (number - 1) * request.size
            let slice = Array(items.dropFirst(start).prefix(request.size))
            let total = max(1, (items.count + request.size - 1) / request.size)
            return Page(items: slice, pageNumber: number, totalPages: total, isLastPage: number >= total, size: request.size)
        }
    }

    @Test func pageSequenceStopsAfterTheLastPage() async throws {
        let source = Source(Array(1...7))
        var pages: [[Int]] = []
        for try await page in PageSequence(first: .number(1, size: 3), fetch: { try await source.page($0) }) {
            pages.append(page.items)
        }
        #expect(pages == [[1, 2, 3], [4, 5, 6], [7]])
    }

    @Test func pageSequenceItemsFlattenEveryPage() async throws {
        let source = Source(Array(1...5))
        var items: [Int] = []
        for try await item in PageSequence(first: .number(1, size: 2), fetch: { try await source.page($0) }).items {
            items.append(item)
        }
        #expect(items == [1, 2, 3, 4, 5])
    }

    @Test func pageSequenceEndsWithTheFetchError() async throws {
        let sequence = PageSequence<Int>(first: .first()) { _ in throw DiaryError(.unavailable, "down") }
        await #expect(throws: DiaryError(.unavailable, "down")) {
            for try await _ in sequence {}
        }
    }

    @Test func pageRequestsValidateTheirSize() {
        #expect(throws: DiaryError.self) { try PageRequest.first(size: 0).validate() }
        #expect(throws: DiaryError.self) { try PageRequest.number(0).validate() }
        #expect(throws: Never.self) { try PageRequest.number(1, size: 100).validate() }
    }

    @Test func pageNumbersWhoseOffsetWouldOverflowAreRejectedEvenWhenDecoded() throws {
        #expect(throws: Never.self) { try PageRequest.number(PageRequest.maximumPageNumber, size: 100).validate() }
        let (offset, overflow) = (PageRequest.maximumPageNumber - 1).multipliedReportingOverflow(by: PageRequest.maximumSize)
        #expect(!overflow && offset >= 0, "the largest page's offset fits in an Int")
        // A request read back from JSON (a saved screen state, a server's query) is checked when used.
        let json = #"{"position":{"type":"number","number":4611686018427387904},"size":100}"#
        let decoded = try JSONDecoder().decode(PageRequest.self, from: Data(json.utf8))
        let error = try #require(throws: DiaryError.self) { try decoded.validate() }
        #expect(error.code == .invalidInput && error.field == "page")
        #expect(throws: DiaryError.self) { try PageRequest.number(Int.max, size: 1).validate() }
    }

    @Test func requestsAndCursorsAreCodable() throws {
        let request = PageRequest.after(PageCursor(rawValue: "abc"), size: 5)
        let data = try JSONEncoder().encode(request)
        #expect(try JSONDecoder().decode(PageRequest.self, from: data) == request)
        #expect(String(decoding: try JSONEncoder().encode(PageCursor(rawValue: "abc")), as: UTF8.self) == #""abc""#)
    }
}
