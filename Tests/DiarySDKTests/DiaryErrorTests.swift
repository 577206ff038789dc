import DiarySDK
import Foundation
import Testing

@Suite("DiaryError")
struct DiaryErrorTests {
    /// A rejected email, as the rules throw it.
    func rejectedEmail() -> DiaryError {
        do {
            _ = try Validation.email("not an address")
        } catch let error as DiaryError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
        }
        return DiaryError(.server, "no error")
    }

    @Test func localizedDescriptionIsTheMessage() {
        let error = rejectedEmail()
        #expect(error.code == .invalidInput)
        #expect(error.localizedDescription == error.message)
        #expect(error.localizedDescription.contains("is not an email address"))
        #expect(error.failureReason == "email: invalid_format")
        // Through `any Error`, as an alert or a log line sees it.
        let erased: any Error = error
        #expect(erased.localizedDescription == error.message)
        #expect(DiaryError(.notFound, "post 1 was not found").failureReason == nil)
    }

    @Test func bridgesToNSErrorWithAStableDomainCodeAndUserInfo() {
        let underlying = DiaryError(.unavailable, "socket closed")
        let error = DiaryError(
            .rateLimited, "slow down", field: "body", reason: .tooLong, retryAfter: 30, httpStatus: 429,
            underlying: underlying)
        let bridged = error as NSError
        #expect(bridged.domain == "DiarySDK.DiaryError")
        #expect(bridged.code == 6)
        #expect(bridged.localizedDescription == "slow down")
        #expect(bridged.userInfo[DiaryError.userInfoCodeKey] as? String == "rate_limited")
        #expect(bridged.userInfo[DiaryError.userInfoFieldKey] as? String == "body")
        #expect(bridged.userInfo[DiaryError.userInfoReasonKey] as? String == "too_long")
        #expect(bridged.userInfo[DiaryError.userInfoRetryAfterKey] as? TimeInterval == 30)
        #expect(bridged.userInfo[DiaryError.userInfoHTTPStatusKey] as? Int == 429)
        #expect((bridged.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 7)
        #expect(bridged.userInfo[NSLocalizedFailureReasonErrorKey] as? String == "body: too_long")
    }

    @Test func everyCodeHasItsOwnNumberAndAnUnknownCodeIsZero() {
        let codes: [DiaryError.Code] = [
            .notFound, .unauthenticated, .forbidden, .invalidInput, .conflict, .rateLimited, .unavailable, .server,
            .storageCorrupted, .cancelled,
        ]
        #expect(codes.map { DiaryError($0, "x").errorCode } == Array(1...10))
        #expect(DiaryError(DiaryError.Code(rawValue: "teapot"), "x").errorCode == 0)
    }

    @Test func aReasonThisVersionDoesNotKnowKeepsItsWireName() throws {
        let decoded = try JSONDecoder().decode([DiaryError.Reason].self, from: Data(#"["blank","too_hot"]"#.utf8))
        #expect(decoded == [.blank, DiaryError.Reason(rawValue: "too_hot")])
        #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == #"["blank","too_hot"]"#)
        // A switch over the reasons a caller handles, with a default for the rest.
        let described = decoded.map { reason -> String in
            switch reason {
            case .blank: "write something"
            case .tooLong: "shorten it"
            default: "invalid (\(reason))"
            }
        }
        #expect(described == ["write something", "invalid (too_hot)"])
    }
}
