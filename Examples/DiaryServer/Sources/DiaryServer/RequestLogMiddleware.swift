import Foundation
import Hummingbird

/// Writes one line per request: method, path (without the query), status and duration. Never headers, tokens,
/// passwords or bodies.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = DiaryRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let path = request.uri.path
        do {
            let response = try await next(request, context)
            Self.log(request.method.rawValue, path, response.status.code, since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            Self.log(request.method.rawValue, path, status, since: start)
            throw error
        }
    }

    static func log(_ method: String, _ path: String, _ status: Int, since start: UInt64) {
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        writeLogLine("\(method) \(path) \(status) \(String(format: "%.1f", milliseconds))ms")
    }
}

/// Writes one line to standard output at once (unbuffered, so a supervisor sees it immediately).
func writeLogLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
