import Dispatch
import Hummingbird
import Metrics

/// Counts requests and times them through swift-metrics, by method, route template and status class:
/// `diary_http_requests_total` and the histogram `diary_http_request_duration_seconds` (to the response head).
///
/// Every label comes from a small fixed set (a path no route has is `unmatched`, a method the API never uses is
/// `other`), so no client can grow the number of series.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = DiaryRequestContext

    static let requestsLabel = "diary_http_requests_total"
    static let durationLabel = "diary_http_request_duration_seconds"
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let response = try await next(request, context)
            Self.record(request, context, status: response.status.code, since: start)
            return response
        } catch {
            Self.record(request, context, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start)
            throw error
        }
    }

    private static func record(_ request: Request, _ context: Context, status: Int, since start: UInt64) {
        let method = methods.contains(request.method.rawValue) ? request.method.rawValue : "other"
        let dimensions = [
            ("method", method), ("route", RequestLogMiddleware.route(of: context)), ("status_class", statusClass(status)),
        ]
        Counter(label: requestsLabel, dimensions: dimensions).increment()
        Metrics.Timer(label: durationLabel, dimensions: dimensions, preferredDisplayUnit: .seconds)
            .recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
    }

    /// `2xx`, `4xx`, `5xx`…
    static func statusClass(_ status: Int) -> String {
        "\(status / 100)xx"
    }
}
