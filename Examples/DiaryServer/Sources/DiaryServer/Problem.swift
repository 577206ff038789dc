import DiarySDK
import Foundation
import Logging

/// An `application/problem+json` document (RFC 9457) carrying the SDK's error code.
struct Problem: Codable, Sendable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var code: String
    var field: String?
    var reason: String?
    var retryAfter: Double?
    var hint: String?

    /// The problem for an SDK error: its own HTTP status when it carries one (413, 415, 414, 431), else the status
    /// of its code. A server failure's text stays in the log; the client reads only that the server failed.
    init(_ error: DiaryError) {
        let status = error.httpStatus ?? Self.status(for: error.code)
        self.type = "https://diarysdk.dev/problems/\(error.code.rawValue.replacingOccurrences(of: "_", with: "-"))"
        self.title = Self.title(for: error.code)
        self.status = status
        if status >= 500 { Self.logCause(of: error, status: status) }
        if error.underlying != nil, error.code == .server {
            self.detail = "the server failed to answer this request"
        } else {
            self.detail = error.message
        }
        self.code = error.code.rawValue
        self.field = error.field
        self.reason = error.reason?.rawValue
        self.retryAfter = error.retryAfter
        self.hint = error == TokenService.expiredAccess ? "token_expired" : nil
    }

    /// Logs why the server answers a 5xx, with the request's id (``ServerLog/current``): the error's message and its
    /// underlying error's description, which the client never reads.
    private static func logCause(of error: DiaryError, status: Int) {
        var metadata: Logger.Metadata = ["status": .stringConvertible(status), "code": .string(error.code.rawValue)]
        if let underlying = error.underlying { metadata["cause"] = .string(String(describing: underlying)) }
        ServerLog.current.error("server failure: \(error.message)", metadata: metadata)
    }

    /// The HTTP status for an error code (docs/openapi.yaml, "Errors").
    static func status(for code: DiaryError.Code) -> Int {
        switch code {
        case .notFound: 404
        case .unauthenticated: 401
        case .forbidden: 403
        case .invalidInput: 422
        case .conflict: 409
        case .rateLimited: 429
        case .unavailable: 503
        case .cancelled: 499
        default: 500
        }
    }

    static func title(for code: DiaryError.Code) -> String {
        switch code {
        case .notFound: "Not found"
        case .unauthenticated: "Unauthenticated"
        case .forbidden: "Forbidden"
        case .invalidInput: "Invalid input"
        case .conflict: "Conflict"
        case .rateLimited: "Too many requests"
        case .unavailable: "Service unavailable"
        case .cancelled: "Cancelled"
        case .storageCorrupted: "Storage corrupted"
        default: "Server error"
        }
    }

    var json: Data { (try? JSONEncoder.diary().encode(self)) ?? Data() }
}
