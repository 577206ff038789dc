import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Logs one line per request through swift-log, and gives the request an id.
///
/// The id is the request's `X-Request-ID` when it is a sane one (1–128 letters, digits, `-`, `_`, `.` or `:`), else
/// a new one; the response carries it back in `X-Request-ID`. Every line written while the request runs carries it
/// as `request_id`, through ``ServerLog/current``: among them the cause of a server failure (``Problem``), which
/// never reaches the client.
///
/// The line names the method, the route template (`/v1/diaries/{diaryID}`, never the query, which may hold a cursor
/// or a search), the status and the duration to the response head. Never headers, tokens, passwords or bodies.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = DiaryRequestContext

    static let requestIDField = HTTPField.Name("X-Request-ID")!

    /// Where request lines and the per-request loggers come from.
    let logger: Logger

    init(logger: Logger = Logger(label: "diary.http")) {
        self.logger = logger
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let requestID = Self.requestID(from: request.headers[Self.requestIDField])
        var requestLogger = logger
        requestLogger[metadataKey: "request_id"] = .string(requestID)
        var context = context
        context.logger[metadataKey: "request_id"] = .string(requestID)
        let status: Int
        var response: Response
        do {
            response = try await ServerLog.$current.withValue(requestLogger) { try await next(request, context) }
            status = response.status.code
        } catch {
            // Only the router's own errors get here (ProblemMiddleware answers everything else).
            let code = (error as? any HTTPResponseError)?.status.code ?? 500
            requestLogger.info("request", metadata: Self.metadata(request, context, code, since: start))
            throw error
        }
        response.headers[Self.requestIDField] = requestID
        requestLogger.info("request", metadata: Self.metadata(request, context, status, since: start))
        return response
    }

    /// The route template of a request, or `unmatched` for a path no route has (so a scan of random paths cannot
    /// grow the label set).
    static func route(of context: Context) -> String {
        guard let path = context.endpointPath, path != "NotFound" else { return "unmatched" }
        return path
    }

    private static func metadata(_ request: Request, _ context: Context, _ status: Int, since start: UInt64)
        -> Logger.Metadata
    {
        // Tenths of a millisecond, rounded, written without `String(format:)` (slow on Linux).
        let tenths = (DispatchTime.now().uptimeNanoseconds - start + 50_000) / 100_000
        return [
            "method": .string(request.method.rawValue),
            "route": .string(route(of: context)),
            "status": .stringConvertible(status),
            "duration_ms": .string("\(tenths / 10).\(tenths % 10)"),
        ]
    }

    /// A new request id: a random UUID's 32 lowercase hex digits.
    static func newRequestID() -> String {
        withUnsafeBytes(of: UUID().uuid) { bytes in
            var text = [UInt8]()
            text.reserveCapacity(32)
            for byte in bytes {
                text.append(hexDigits[Int(byte >> 4)])
                text.append(hexDigits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The incoming id when it is sane, else a new random one (32 hexadecimal digits).
    static func requestID(from header: String?) -> String {
        if let header, (1...128).contains(header.utf8.count),
            header.utf8.allSatisfy({ byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
            })
        {
            return header
        }
        return Self.newRequestID()
    }
}
