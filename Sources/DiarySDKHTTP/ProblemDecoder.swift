import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns an error response (`application/problem+json`, docs/openapi.yaml "Errors") into a ``DiaryError``.
enum ProblemDecoder {
    private struct Problem: Decodable {
        var title: String?
        var status: Int?
        var detail: String?
        var code: String?
        var field: String?
        var reason: String?
        var retryAfter: Double?
    }

    /// The error for a non-2xx response: the server's code and message when it sent a problem document, otherwise
    /// a code derived from the status.
    static func error(status: Int, data: Data, headers: HTTPURLResponse) -> DiaryError {
        let problem = try? JSONDecoder().decode(Problem.self, from: data)
        let code = problem?.code.map(DiaryError.Code.init(rawValue:)) ?? code(for: status)
        let message = problem?.detail ?? problem?.title ?? "the server answered \(status)"
        var retryAfter = problem?.retryAfter
        if let header = headers.value(forHTTPHeaderField: "Retry-After") {
            retryAfter = RetryPolicy.retryAfter(header) ?? retryAfter
        }
        return DiaryError(
            code, message, field: problem?.field, reason: problem?.reason.map(DiaryError.Reason.init(rawValue:)),
            retryAfter: retryAfter, httpStatus: status)
    }

    /// The code for a status without a problem document.
    static func code(for status: Int) -> DiaryError.Code {
        switch status {
        case 400, 413, 415, 422: .invalidInput
        case 401: .unauthenticated
        case 403: .forbidden
        case 404, 410: .notFound
        case 409, 412: .conflict
        case 429: .rateLimited
        case 499: .cancelled
        case 502, 503, 504: .unavailable
        default: .server
        }
    }
}
