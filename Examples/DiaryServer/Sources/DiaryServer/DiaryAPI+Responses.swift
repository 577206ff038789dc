import DiarySDK
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension DiaryAPI {
    /// Runs a handler for the idempotency store, keeping a failure as its problem document.
    static func stored(from handler: Handler, _ call: Call) async -> StoredResponse {
        do {
            return stored(try await handler(call))
        } catch {
            return stored(DiaryError.wrapping(error))
        }
    }

    /// A complete reply as the bytes to send.
    static func stored(_ reply: Reply) -> StoredResponse {
        switch reply {
        case .json(let data, let status): .init(status: status, contentType: "application/json", body: data)
        case .noContent: .init(status: 204, contentType: nil, body: Data())
        case .bytes(let data, let type): .init(status: 200, contentType: type, body: data)
        case .response: .init(status: 500, contentType: nil, body: Data())
        }
    }

    /// An error as its problem document.
    static func stored(_ error: DiaryError) -> StoredResponse {
        let problem = Problem(error)
        return .init(
            status: problem.status, contentType: "application/problem+json", body: problem.json,
            retryAfter: error.retryAfter.flatMap { $0.isFinite && $0 >= 0 && $0 < 1e9 ? String(Int($0.rounded(.up))) : nil })
    }

    /// The response for stored bytes; `malformed` (a test fault) replaces the body with one that is not JSON.
    static func response(_ stored: StoredResponse, malformed: Bool = false) -> Response {
        var headers: HTTPFields = [HTTPField.Name("X-Content-Type-Options")!: "nosniff"]
        if let type = stored.contentType { headers[.contentType] = type }
        if let retryAfter = stored.retryAfter { headers[.retryAfter] = retryAfter }
        let body = malformed ? Data("{\"items\": [ not json".utf8) : stored.body
        return Response(
            status: .init(code: stored.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The problem response for an error.
    static func problem(_ error: DiaryError) -> Response {
        response(stored(error))
    }
}
