import Foundation
import Testing

@testable import DiarySDKHTTP

@Suite("Query encoding")
struct QueryEncodingTests {
    @Test(arguments: [
        "", "plain", "두 단어", "swift&ios=yes", "a+b c/d?e#f", "100%", "😀👨‍👩‍👧", "~._-", "é\u{301}", "\u{00}\u{1F}\u{7F}",
        "v1:1774000000123456:8a1c0a4e-2b3d-4c5e-8f60-718293a4b5c6",
    ])
    func valuesAreEncodedExactlyAsFoundationEncodesUnreservedOnly(_ value: String) {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        #expect(HTTPRequest.percentEncoded(value) == value.addingPercentEncoding(withAllowedCharacters: unreserved))
        #expect(HTTPRequest.percentEncoded(value).removingPercentEncoding == value)
    }

    @Test func theQueryJoinsEncodedPairsInOrder() {
        let request = HTTPRequest("GET", "/v1/posts/search", query: [("text", "오늘 배운 것"), ("tag", "a&b"), ("size", "20")])
        #expect(request.encodedQuery == "text=%EC%98%A4%EB%8A%98%20%EB%B0%B0%EC%9A%B4%20%EA%B2%83&tag=a%26b&size=20")
    }
}
