import Foundation
import HTTPTypes
import Hummingbird

/// Appends every exchange of a recorded world to a JSON-lines file (test mode, `--contract-log PATH`), so
/// scripts/validate_contract.py can check each request and response against docs/openapi.yaml.
///
/// A world is recorded when a test creates it with `POST /v1/_test/worlds?record=true` (the HTTP conformance run
/// does); worlds that send malformed requests on purpose (security and fuzz tests) are not. No secret is written:
/// the `Authorization` header only as a flag, and the values of passwords and tokens in JSON bodies as `"redacted"`
/// (still strings, so they validate the same). A change stream is recorded with its first events as the response
/// body (``recording(_:_:)``), which the script checks event by event.
final class ContractLog: Sendable {
    /// One line of the file.
    struct Exchange: Codable, Sendable {
        var method: String
        /// The OpenAPI path template, such as `/v1/posts/{postID}`.
        var template: String
        var path: String
        var query: String
        var requestContentType: String?
        /// Whether the request carried an `Authorization` header (its value is never written).
        var authenticated: Bool
        var idempotencyKey: String?
        /// The request body, base64.
        var requestBody: String
        var status: Int
        var responseContentType: String?
        /// The response body, base64 (for a change stream, the first events it sent).
        var responseBody: String?
    }

    private let handle: Protected<FileHandle>

    /// Opens (or creates) the file for appending.
    /// - Throws: When the file cannot be opened.
    init(url: URL) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        self.handle = Protected(handle)
    }

    /// Appends one exchange.
    func record(
        _ request: Request, route: RegisteredRoute, body: Data, status: Int, contentType: String?, responseBody: Data?
    ) {
        let exchange = Exchange(
            method: request.method.rawValue, template: Self.template(route.path), path: request.uri.path,
            query: request.uri.query ?? "", requestContentType: request.headers[.contentType],
            authenticated: request.headers[.authorization] != nil,
            idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!],
            requestBody: Self.redacted(body).base64EncodedString(), status: status, responseContentType: contentType,
            responseBody: responseBody.map { Self.redacted($0).base64EncodedString() })
        guard var line = try? JSONEncoder().encode(exchange) else { return }
        line.append(0x0A)
        handle.withLock { $0.write(line) }
    }

    /// The most events of a stream recorded: its exchange is written once it has sent this many, or when it ends.
    static let recordedEvents = 8
    /// The most bytes of a stream's events recorded.
    static let recordedStreamBytes = 64 << 10

    /// A stream's body that records its exchange (`record`, with the first whole events it sent as the response
    /// body) once it has sent ``recordedEvents`` events or ``recordedStreamBytes`` bytes, or when it ends, whichever
    /// comes first; what it sends is unchanged.
    func recording(_ body: ResponseBody, _ record: @escaping @Sendable (Data) -> Void) -> ResponseBody {
        let recording = Protected(StreamRecording())
        @Sendable func flush() {
            guard let events = recording.withLock({ $0.take() }) else { return }
            record(events)
        }
        let recorded = body.map { buffer in
            if recording.withLock({ $0.add(buffer) }) { flush() }
            return buffer
        }
        return ResponseBody { writer in
            defer { flush() }
            try await recorded.write(writer)
        }
    }

    /// The whole events a stream sent, until its exchange is recorded.
    private struct StreamRecording {
        private var bytes = Data()
        private var events = 0
        private var isRecorded = false

        /// Adds what the stream sent; returns whether the exchange is to be recorded now.
        mutating func add(_ buffer: ByteBuffer) -> Bool {
            guard !isRecorded else { return false }
            let text = Data(buffer.readableBytesView)
            guard bytes.count + text.count <= ContractLog.recordedStreamBytes else { return true }
            bytes.append(text)
            events += Self.eventsEnded(in: text)
            return events >= ContractLog.recordedEvents
        }

        /// The events of one buffer: the blank lines ending them (the stream writes whole events).
        private static func eventsEnded(in text: Data) -> Int {
            var count = 0
            var previous: UInt8 = 0
            for byte in text {
                if byte == 0x0A, previous == 0x0A { count += 1 }
                previous = byte
            }
            return count
        }

        /// The events sent, once: `nil` when already taken.
        mutating func take() -> Data? {
            guard !isRecorded else { return nil }
            isRecorded = true
            return bytes
        }
    }

    /// Member names whose string values are secrets.
    static let secretMembers: Set<String> = ["password", "accessToken", "refreshToken", "token", "identityToken"]

    /// A JSON body with the string values of secret members replaced by `"redacted"`; any other body unchanged.
    static func redacted(_ body: Data) -> Data {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return body }
        var changed = false
        let cleaned = redacted(object, changed: &changed)
        guard changed, let data = try? JSONSerialization.data(withJSONObject: cleaned, options: [.fragmentsAllowed]) else {
            return body
        }
        return data
    }

    private static func redacted(_ value: Any, changed: inout Bool) -> Any {
        if let object = value as? [String: Any] {
            var cleaned: [String: Any] = [:]
            for (key, member) in object {
                if secretMembers.contains(key), member is String {
                    cleaned[key] = "redacted"
                    changed = true
                } else {
                    cleaned[key] = redacted(member, changed: &changed)
                }
            }
            return cleaned
        }
        if let array = value as? [Any] { return array.map { redacted($0, changed: &changed) } }
        return value
    }

    /// `/v1/posts/:postID` as `/v1/posts/{postID}`.
    static func template(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }
}
