import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one HTTP/1.1 request from a socket: the head up to a limit, then a `Content-Length` body.
enum HTTPRequestReader {
    /// The largest request head accepted.
    static let maxHeadBytes = 64 * 1_024
    /// The largest request body accepted.
    static let maxBodyBytes = 1_024 * 1_024

    /// Reads a request, or the status to answer with when it is malformed or too large.
    static func read(from socket: Int32) -> Result<LoopbackHTTPServer.Request, ReadFailure> {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        var headEnd: Int?
        while headEnd == nil {
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { return .failure(ReadFailure(status: 400)) }
            buffer.append(contentsOf: chunk[0..<count])
            headEnd = terminator(in: buffer)
            if headEnd == nil && buffer.count > maxHeadBytes { return .failure(ReadFailure(status: 431)) }
        }
        guard let headEnd, var request = parseHead(Array(buffer[0..<headEnd])) else { return .failure(ReadFailure(status: 400)) }
        var body = Array(buffer[(headEnd + 4)...])
        let length = request.header("Content-Length").flatMap { Int($0) } ?? 0
        guard length >= 0, length <= maxBodyBytes else { return .failure(ReadFailure(status: 413)) }
        while body.count < length {
            let count = recv(socket, &chunk, min(chunk.count, length - body.count), 0)
            guard count > 0 else { return .failure(ReadFailure(status: 400)) }
            body.append(contentsOf: chunk[0..<count])
        }
        request.body = Data(body.prefix(length))
        return .success(request)
    }

    /// The status a malformed request is answered with.
    struct ReadFailure: Error {
        var status: Int
    }

    private static func terminator(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parseHead(_ bytes: [UInt8]) -> LoopbackHTTPServer.Request? {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ", omittingEmptySubsequences: true) ?? []
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        let target = String(parts[1])
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [LoopbackHTTPServer.Header] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append(.init(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return LoopbackHTTPServer.Request(
            method: String(parts[0]), path: String(pieces[0]), query: pieces.count > 1 ? String(pieces[1]) : nil, headers: headers,
            body: Data())
    }
}
