import Foundation
import Testing

@testable import DiaryServer

@Suite("Contract log")
struct ContractLogTests {
    @Test func passwordsAndTokensAreRedactedAndOtherBodiesKeptAsTheyAre() throws {
        let signIn = Data(#"{"email":"a@example.com","password":"correct horse battery"}"#.utf8)
        let reply = Data(#"{"accessToken":"eyJ.a.b","refreshToken":"eyJ.c.d","tokenType":"Bearer","user":{"id":"x"}}"#.utf8)
        let identity = Data(#"{"identityToken":{"provider":"apple","token":"test:s:e"}}"#.utf8)
        for body in [signIn, reply, identity] {
            let text = String(decoding: ContractLog.redacted(body), as: UTF8.self)
            for secret in ["correct horse", "eyJ", "test:s:e"] { #expect(!text.contains(secret), "\(text)") }
            #expect(text.contains("redacted"))
        }
        let post = Data(#"{"title":"T","body":"B\/x","tags":[]}"#.utf8)
        #expect(ContractLog.redacted(post) == post, "a body without secrets is written byte for byte")
        #expect(ContractLog.redacted(Data([0x89, 0x50])) == Data([0x89, 0x50]))
    }

    @Test func routeTemplatesUseOpenAPIParameters() {
        #expect(ContractLog.template("/v1/books/:bookID/members/:userID") == "/v1/books/{bookID}/members/{userID}")
    }
}
