import DiarySDK
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on `127.0.0.1` for tests: real sockets, real requests, nothing beyond loopback.
///
/// It binds an ephemeral port, answers `GET` and `HEAD` from routes registered as closures, records every request
/// with its headers, and closes each connection after one response (`Connection: close`). The accept loop runs on its
/// own thread; each connection is served on a background queue, so slow handlers do not block other clients.
///
/// ```swift
/// let server = try LoopbackHTTPServer()
/// defer { server.stop() }
/// server.route("/rss") { request in
///     if request.header("If-None-Match") == "\"v1\"" { return .init(status: 304) }
///     return .init(status: 200, headers: ["ETag": "\"v1\"", "Content-Type": "application/rss+xml"], body: Data(rss.utf8))
/// }
/// let response = try await fetcher.fetch(FeedFetchRequest(url: server.url("/rss")))
/// ```
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// A route's answer.
    public typealias Handler = @Sendable (Request) -> Response

    /// The port the server listens on.
    public let port: UInt16
    private let listener: Int32
    private let state = Locked(State())
    private let stopped = DispatchSemaphore(value: 0)
    private let connections = DispatchQueue(label: "LoopbackHTTPServer.connections", attributes: .concurrent)

    private struct State {
        var routes: [String: Handler] = [:]
        var requests: [Request] = []
        var running = true
    }

    /// Starts a server on `127.0.0.1` with an ephemeral port.
    /// - Throws: `DiaryError` with `.unavailable` when the socket cannot be created, bound or listened on.
    public init() throws {
        let fd = Self.systemSocket()
        guard fd >= 0 else { throw DiaryError(.unavailable, "cannot create a socket (errno \(errno))") }
        var reuse: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw DiaryError(.unavailable, "cannot listen on 127.0.0.1 (errno \(code))")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: actual.sin_port)
        let (state, stopped, connections) = (state, stopped, connections)
        // The thread holds the shared parts, not the server, so dropping the last reference still stops it (deinit).
        let thread = Thread { Self.acceptLoop(listener: fd, state: state, stopped: stopped, connections: connections) }
        thread.name = "LoopbackHTTPServer:\(port)"
        thread.start()
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The absolute address of a path on this server.
    /// - Parameter path: A path starting with `/`, optionally with a query.
    /// - Returns: The address.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Serves `path` (matched exactly, without the query) with `handler`, replacing any earlier route for it.
    /// Unrouted paths get `404`.
    /// - Parameters:
    ///   - path: The path, such as `"/rss"`.
    ///   - handler: Builds the response; it runs on a background thread.
    public func route(_ path: String, _ handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    /// Serves a fixed response at `path`.
    /// - Parameters:
    ///   - path: The path.
    ///   - response: The response sent to every request.
    public func route(_ path: String, _ response: Response) {
        route(path) { _ in response }
    }

    /// Every request received so far, in arrival order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// How many requests asked for `path` (without query).
    /// - Parameter path: The path.
    /// - Returns: The count.
    public func hits(_ path: String) -> Int {
        state.withLock { $0.requests.filter { $0.path == path }.count }
    }

    /// Stops accepting connections and waits for the accept loop to end. Safe to call more than once.
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.running = false }
            return state.running
        }
        guard wasRunning else { return }
        stopped.wait()
    }

    // MARK: - Serving

    private static func acceptLoop(
        listener: Int32, state: Locked<State>, stopped: DispatchSemaphore, connections: DispatchQueue
    ) {
        while state.withLock({ $0.running }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 50)
            guard ready > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            configure(client)
            connections.async { serve(client, state: state) }
        }
        close(listener)
        stopped.signal()
    }

    private static func serve(_ client: Int32, state: Locked<State>) {
        defer { close(client) }
        let response: Response
        var isHead = false
        switch HTTPRequestReader.read(from: client) {
        case .failure(let failure):
            response = Response(status: failure.status, headers: ["Content-Type": "text/plain"], body: Data("bad request".utf8))
        case .success(let request):
            isHead = request.method == "HEAD"
            let handler = state.withLock { state -> Handler? in
                state.requests.append(request)
                return state.routes[request.path]
            }
            if request.method != "GET" && request.method != "HEAD" {
                response = Response(status: 405, headers: ["Allow": "GET, HEAD"])
            } else if let handler {
                response = handler(request)
            } else {
                response = Response(status: 404, headers: ["Content-Type": "text/plain"], body: Data("not found".utf8))
            }
        }
        transmit(response.serialized(includeBody: !isHead), to: client)
    }

    private static func systemSocket() -> Int32 {
        #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func configure(_ client: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var noSigPipe: Int32 = 1
        _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func transmit(_ data: Data, to client: Int32) {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = send(client, base + offset, buffer.count - offset, flags)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
