import DiarySDK
import Foundation
import Logging
import Testing

@testable import DiaryServer

/// The log line format and the request id (the end-to-end request log is tested over loopback by the SDK's
/// Tests/DiarySDKHTTPTests/ServerOperationsTests.swift).
@Suite("Request log")
struct RequestLogTests {
    final class Lines: Sendable {
        let captured = Protected<[String]>([])
        var all: [String] { captured.withLock { $0 } }
    }

    static func logger(_ lines: Lines, level: Logger.Level = .info) -> Logger {
        Logger(label: "diary.test") { label in
            LineLogHandler(label: label, level: level) { line in lines.captured.withLock { $0.append(line) } }
        }
    }

    @Test func aLineHasTimeLevelLabelMessageThenSortedPairs() throws {
        let lines = Lines()
        Self.logger(lines).info("request", metadata: ["status": "200", "method": "GET", "route": "/v1/diaries/{diaryID}"])
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix(" info diary.test: request method=GET route=/v1/diaries/{diaryID} status=200\n"))
        let time = try #require(line.split(separator: " ").first)
        #expect(time.hasSuffix("Z") && time.contains("T") && time.contains("."), "\(time)")
        #expect(LineLogHandler.timestamp(Date(timeIntervalSince1970: 1_795_000_000.123_456)) == "2026-11-18T11:06:40.123Z")
        #expect(LineLogHandler.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    @Test func aValueWithBlanksQuotesOrLineBreaksStaysOneReadableValue() throws {
        let lines = Lines()
        Self.logger(lines).error("server failure:\nsecond line", metadata: ["cause": "a \"quoted\" = thing\nnext"])
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix(#"server failure:\nsecond line cause="a \"quoted\" = thing\nnext""# + "\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
    }

    @Test func linesBelowTheLevelAreNotWritten() {
        let lines = Lines()
        let logger = Self.logger(lines, level: .warning)
        logger.info("hidden")
        logger.warning("shown")
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains("shown") == true)
    }

    @Test func aServerFailureLogsItsCauseWithTheRequestIDAndTheProblemHidesIt() throws {
        let lines = Lines()
        var logger = Self.logger(lines)
        logger[metadataKey: "request_id"] = "r-1"
        let problem = ServerLog.$current.withValue(logger) { Problem(DiaryError.wrapping(InjectedFailure())) }
        #expect(problem.status == 500)
        #expect(problem.detail == "the server failed to answer this request")
        #expect(!String(decoding: problem.json, as: UTF8.self).contains("injected"))
        let line = try #require(lines.all.first)
        #expect(lines.all.count == 1)
        #expect(line.contains(" error diary.test: server failure: "))
        #expect(line.contains(#"cause="injected internal failure (fault rule 'fail')""#), "\(line)")
        #expect(line.contains("request_id=r-1"))
    }

    @Test func aClientErrorLogsNothing() {
        let lines = Lines()
        let problem = ServerLog.$current.withValue(Self.logger(lines)) { Problem(DiaryError.notFound("diary 1")) }
        #expect(problem.status == 404)
        #expect(lines.all.isEmpty)
    }

    @Test func aSaneIncomingRequestIDIsKept() {
        #expect(RequestLogMiddleware.requestID(from: "abc-123_x.y:z") == "abc-123_x.y:z")
        #expect(RequestLogMiddleware.requestID(from: String(repeating: "a", count: 128)) == String(repeating: "a", count: 128))
    }

    @Test(arguments: ["", "has space", "new\nline", "quote\"", String(repeating: "a", count: 129), "é"])
    func anInsaneIncomingRequestIDIsReplacedByANewOne(_ incoming: String) {
        let id = RequestLogMiddleware.requestID(from: incoming)
        #expect(id != incoming)
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
    }

    @Test func aMissingRequestIDGetsANewOneEachTime() {
        let first = RequestLogMiddleware.requestID(from: nil)
        #expect(first.count == 32)
        #expect(first.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, "\(first)")
        #expect(first != RequestLogMiddleware.requestID(from: nil))
    }

    @Test func theLogLevelComesFromTheEnvironment() throws {
        #expect(try ServerOptions.parse(["--in-memory"], environment: [:]).logLevel == .info)
        #expect(try ServerOptions.parse(["--in-memory"], environment: ["DIARY_LOG_LEVEL": "Debug"]).logLevel == .debug)
        #expect(throws: OptionsError.self) { try ServerOptions.parse(["--in-memory"], environment: ["DIARY_LOG_LEVEL": "loud"]) }
        #expect(try ServerOptions.parse(["--in-memory"], environment: ["DIARY_DRAIN_SECONDS": "3"]).drainSeconds == 3)
    }
}
