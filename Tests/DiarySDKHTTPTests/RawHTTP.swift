import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP/1.1 over a plain loopback socket, for what URLSession will not send or show: a body announced but never
/// sent, hand-made framing, a response read as it streams. Blocking calls run off the cooperative pool.
final class RawHTTPConnection: @unchecked Sendable {
    /// A parsed response.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let descriptor: Int32
    private var buffered = Data()

    /// Connects to 127.0.0.1:`port`; every read gives up after `timeout` seconds. With `receiveBuffer`, the socket's
    /// receive buffer is that many bytes, so a client that stops reading holds the server back sooner.
    init(port: Int, timeout: TimeInterval = 10, receiveBuffer: Int? = nil) throws {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw ServerError("socket() failed") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw ServerError("cannot connect to 127.0.0.1:\(port)")
        }
    }

    deinit { close(descriptor) }

    /// Sends bytes; a connection the server closed is not an error (it may answer before reading a body).
    func send(_ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    /// Sends text.
    func send(_ text: String) { send(Data(text.utf8)) }

    /// Reads until one of `markers` has arrived (or the connection ends or times out); returns everything read so
    /// far.
    func read(untilAnyOf markers: [String]) -> Data {
        let needles = markers.map { Data($0.utf8) }
        while !needles.contains(where: { buffered.range(of: $0) != nil }), fill() {}
        return buffered
    }

    /// Reads one response's status line and headers only (for a stream that does not end).
    /// - Throws: When no complete head arrives.
    func readHead() throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        while buffered.range(of: separator) == nil {
            guard fill() else { throw ServerError("no response head (got \(buffered.count) bytes)") }
        }
        return try parseHead()
    }

    /// Reads one response: head, then a `Content-Length` or chunked body, or up to the end of the connection.
    /// - Throws: When no complete head arrives.
    func readResponse() throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        while buffered.range(of: separator) == nil {
            guard fill() else { throw ServerError("no response head (got \(buffered.count) bytes)") }
        }
        var response = try parseHead()
        let headers = response.headers
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            while buffered.count < length, fill() {}
            response.body = Data(buffered.prefix(length))
            buffered = Data(buffered.dropFirst(length))
            return response
        }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while buffered.range(of: Data("0\r\n\r\n".utf8)) == nil, fill() {}
            response.body = Self.dechunk(buffered)
            return response
        }
        while fill() {}
        response.body = buffered
        return response
    }

    /// Parses the head at the front of the buffer (which holds all of it) and consumes it.
    private func parseHead() throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        guard let split = buffered.range(of: separator) else { throw ServerError("no response head") }
        let head = String(decoding: buffered[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        buffered = Data(buffered[split.upperBound...])
        let statusLine = head.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ServerError("bad status line \(head)") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Data())
    }

    /// Reads the rest of a chunked response body, up to its last chunk.
    /// - Returns: The body, and whether the server ended it (its last chunk came; not a timeout or a dropped
    ///   connection).
    func readChunkedBodyToItsEnd() -> (body: Data, ended: Bool) {
        let last = Data("0\r\n\r\n".utf8)
        var searched = 0
        while true {
            if let end = buffered.range(of: last, in: max(0, searched - last.count)..<buffered.count) {
                return (Self.dechunk(buffered[..<end.upperBound]), true)
            }
            searched = buffered.count
            guard fill() else { return (Self.dechunk(buffered), false) }
        }
    }

    /// Whether the server closed the connection (a read returns end-of-file at once).
    var isClosedByServer: Bool { !fill() }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffered.append(contentsOf: chunk[0..<count])
        return true
    }

    private static func dechunk(_ data: Data) -> Data {
        var body = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)),
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0,
            rest.distance(from: lineEnd.upperBound, to: rest.endIndex) >= size
        {
            let start = lineEnd.upperBound
            let end = rest.index(start, offsetBy: size)
            body.append(rest[start..<end])
            rest = rest[(rest.index(end, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        return body
    }
}

/// Runs blocking socket work off the cooperative thread pool.
func offPool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
