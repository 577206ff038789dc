import DiarySDK
import Foundation
import Hummingbird
import NIOCore

/// How much of a request the server reads, and the problem it answers for more.
///
/// Every limit is checked before the part it limits is read into memory: the request line and headers before
/// routing, a body's announced `Content-Length` after authentication and before a byte of it is read, and a body
/// without a length while it is being read. docs/REST.md ("Limits") lists them.
enum RequestLimits {
    /// The longest request target (path and query) the server reads: 8 KiB.
    static let maximumTargetBytes = 8 * 1024
    /// The most header bytes (names and values) the server reads: 16 KiB.
    static let maximumHeaderBytes = 16 * 1024

    /// The 413 for a body over a route's limit.
    static func bodyTooLarge(limit: Int) -> DiaryError {
        DiaryError(
            .invalidInput, "the request body is larger than this route accepts (\(limit) bytes)", field: "body",
            reason: .tooLong, httpStatus: 413)
    }

    /// The 415 for a body that is not of the type the route reads.
    static func unsupportedType(_ type: String?, expected: String) -> DiaryError {
        DiaryError(
            .invalidInput, "this route reads \(expected), not '\(type ?? "no Content-Type")'", field: "Content-Type",
            reason: .invalidFormat, httpStatus: 415)
    }

    /// The 414 or 431 for a request line or header block over its limit, or nil when both are within them.
    static func problem(forHead request: Request) -> DiaryError? {
        let target = request.uri.description.utf8.count
        if target > maximumTargetBytes {
            return DiaryError(
                .invalidInput, "the request target is \(target) bytes; the limit is \(maximumTargetBytes)", field: "query",
                reason: .tooLong, httpStatus: 414)
        }
        let headers = request.headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
        if headers > maximumHeaderBytes {
            return DiaryError(
                .invalidInput, "the request headers are \(headers) bytes; the limit is \(maximumHeaderBytes)",
                field: "headers", reason: .tooLong, httpStatus: 431)
        }
        return nil
    }

    /// Reads a request body as `policy` allows: refuses a body announced as too large without reading it, a
    /// JSON route's body of another type, and a body without a length once it passes the limit.
    /// - Throws: `DiaryError` with status 413 or 415.
    static func readBody(of request: inout Request, _ policy: BodyPolicy) async throws -> Data {
        if let announced = request.headers[.contentLength].flatMap({ Int($0) }), announced > policy.limit {
            throw bodyTooLarge(limit: policy.limit)
        }
        let type = request.headers[.contentType]
        if policy.kind == .json, let type, !isJSON(type) {
            throw unsupportedType(type, expected: "application/json")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: policy.limit)
        } catch is NIOTooManyBytesError {
            throw bodyTooLarge(limit: policy.limit)
        }
        if policy.kind == .json, type == nil, buffer.readableBytes > 0 {
            throw unsupportedType(nil, expected: "application/json")
        }
        return Data(buffer.readableBytesView)
    }

    /// Whether a Content-Type is JSON (`application/json` or `application/…+json`, any parameters).
    static func isJSON(_ type: String) -> Bool {
        let media = type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    }
}
