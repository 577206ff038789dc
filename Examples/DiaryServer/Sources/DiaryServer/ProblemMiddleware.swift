import DiarySDK
import Hummingbird

/// Answers every failure outside a route handler as a problem document: a request target or header block over
/// `RequestLimits` (414, 431, checked before routing) and the router's own errors (no such route, 404).
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = DiaryRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let problem = RequestLimits.problem(forHead: request) { return DiaryAPI.problem(problem) }
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let status = error.status.code
            let message =
                status == 404 ? "no route \(request.method.rawValue) \(request.uri.path)" : error.status.reasonPhrase
            return DiaryAPI.problem(DiaryError(Self.code(for: status), message, httpStatus: status))
        } catch {
            return DiaryAPI.problem(DiaryError.wrapping(error))
        }
    }

    /// The error code for a status the router answered.
    static func code(for status: Int) -> DiaryError.Code {
        switch status {
        case 401: .unauthenticated
        case 403: .forbidden
        case 404, 405: .notFound
        case 429: .rateLimited
        case 503: .unavailable
        case 400..<500: .invalidInput
        default: .server
        }
    }
}
