import Foundation

extension LoopbackHTTPServer {
    /// A request the server received.
    public struct Request: Sendable, Hashable {
        /// The method (`"GET"`, `"HEAD"`).
        public var method: String
        /// The path without the query (`"/rss"`).
        public var path: String
        /// The query without `?`, if any.
        public var query: String?
        /// The headers in arrival order, names as sent.
        public var headers: [Header]
        /// The body (`Content-Length` bytes), usually empty.
        public var body: Data

        /// A header's value, matching the name case-insensitively; the first one when repeated.
        /// - Parameter name: The header name.
        /// - Returns: The value, or `nil` when absent.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// One header line.
    public struct Header: Sendable, Hashable {
        /// The name, as sent.
        public var name: String
        /// The value, trimmed.
        public var value: String

        /// Creates a header.
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// What a route answers.
    public struct Response: Sendable, Hashable {
        /// The status code.
        public var status: Int
        /// Extra headers (`Content-Length` and `Connection` are added by the server).
        public var headers: [String: String]
        /// The body (not sent for `HEAD`).
        public var body: Data

        /// Creates a response.
        /// - Parameters:
        ///   - status: The status code.
        ///   - headers: Extra headers.
        ///   - body: The body.
        public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A `200` with a text body and a content type.
        /// - Parameters:
        ///   - text: The body, sent as UTF-8.
        ///   - contentType: The `Content-Type` header.
        ///   - headers: Extra headers.
        /// - Returns: The response.
        public static func text(_ text: String, contentType: String, headers: [String: String] = [:]) -> Response {
            var all = headers
            all["Content-Type"] = contentType
            return Response(status: 200, headers: all, body: Data(text.utf8))
        }

        /// A redirect to `location`.
        /// - Parameters:
        ///   - location: The target, absolute or relative.
        ///   - status: The status (default `302`).
        /// - Returns: The response.
        public static func redirect(to location: String, status: Int = 302) -> Response {
            Response(status: status, headers: ["Location": location])
        }

        /// The bytes on the wire.
        func serialized(includeBody: Bool) -> Data {
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) where !Self.managed.contains(name.lowercased()) {
                head += "\(name): \(value)\r\n"
            }
            if status != 304 && status != 204 { head += "Content-Length: \(body.count)\r\n" }
            head += "Connection: close\r\n\r\n"
            var data = Data(head.utf8)
            if includeBody && status != 304 && status != 204 { data.append(body) }
            return data
        }

        private static let managed: Set<String> = ["content-length", "connection", "transfer-encoding"]

        private static func reason(_ status: Int) -> String {
            switch status {
            case 200: "OK"
            case 204: "No Content"
            case 301: "Moved Permanently"
            case 302: "Found"
            case 304: "Not Modified"
            case 307: "Temporary Redirect"
            case 400: "Bad Request"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 410: "Gone"
            case 431: "Request Header Fields Too Large"
            case 500: "Internal Server Error"
            case 503: "Service Unavailable"
            default: "Status"
            }
        }
    }
}
