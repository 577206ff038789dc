import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one thing ``HTTPBackend`` needs from the network: send a request, get the body and the response. Tests hand in
/// a scripted transport through the backend's internal initializer; apps always use ``URLSessionTransport``.
protocol HTTPTransport: Sendable {
    /// Sends a request; cancelling the calling task cancels it.
    func send(_ request: URLRequest, body: Data?) async throws -> (Data, HTTPURLResponse)

    /// Sends a request with a body, reporting the bytes sent; cancelling the calling task cancels it.
    func upload(
        _ request: URLRequest, body: Data, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse)

    /// Opens a streaming response (server-sent events) and yields its bytes as they arrive.
    func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error>
}

/// Sends requests with a `URLSession` data task, wrapped so that cancelling the calling task cancels the data task.
///
/// The request's `timeoutInterval` is enforced here as a deadline for the whole answer: FoundationNetworking does
/// not apply it to a server that accepts the connection and then stays silent.
///
/// On Apple platforms every request, upload and event stream runs on the app's own session, so its delegate decides
/// authentication challenges (certificate pinning, client certificates) for all of them: requests as data tasks with
/// their body as data, uploads with `upload(for:from:delegate:)`, whose task delegate only reports progress (the
/// session's delegate is asked whatever a task delegate does not answer), and the event stream with
/// `bytes(for:delegate:)`.
///
/// With FoundationNetworking (Linux) every request goes through a companion session (the app session's configuration
/// without its URL cache, one per app session, see ``RewindableBodies``; authentication challenges are passed on to
/// the app session's delegate) that can hand a body over again: when a kept-alive connection turns out to be dead, the URL loading
/// system re-sends the request on a new connection, and FoundationNetworking would otherwise re-send a POST without
/// its body, which the server waits for until the timeout (30 s by default). With the body re-supplied the re-send
/// completes, or the drop fails fast and ``HTTPClient`` retries with the same idempotency key. Uploads and the event
/// stream run there on sessions of their own made from the app session's configuration, whose delegate is not asked
/// (FoundationNetworking has no `bytes(for:delegate:)`).
struct URLSessionTransport: HTTPTransport {
    let session: URLSession

    func send(_ request: URLRequest, body: Data?) async throws -> (Data, HTTPURLResponse) {
        var request = request
        #if canImport(FoundationNetworking)
        // Every request goes through the companion: it re-supplies a body, and it has no URL cache (see
        // `URLSessionConfiguration.withoutURLCache`).
        let companion = RewindableBodies.companion(of: self.session)
        let session = companion.session
        if let body { request.httpBodyStream = InputStream(data: body) }
        let identifier = Locked<Int?>(nil)
        #else
        // Apple's URL loading system re-sends a body it was given as data by itself.
        let session = self.session
        request.httpBody = body
        #endif
        let handle = TaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    #if canImport(FoundationNetworking)
                    if let kept = identifier.current { companion.bodies.forget(kept) }
                    #endif
                    handle.finish()
                    if handle.hasTimedOut {
                        continuation.resume(throwing: URLError(.timedOut))
                    } else if let error {
                        continuation.resume(throwing: error)
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                #if canImport(FoundationNetworking)
                if let body {
                    identifier.withLock { $0 = task.taskIdentifier }
                    companion.bodies.keep(body, for: task.taskIdentifier)
                }
                #endif
                handle.start(task, deadline: request.timeoutInterval)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    func upload(
        _ request: URLRequest, body: Data, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) async throws -> (Data, HTTPURLResponse) {
        #if canImport(FoundationNetworking)
        let handle = TaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) in
                let delegate = UploadDelegate(progress: progress, handle: handle, continuation: continuation)
                let uploadSession = URLSession(
                    configuration: session.configuration.withoutURLCache, delegate: delegate, delegateQueue: nil)
                handle.start(uploadSession.uploadTask(with: request, from: body), deadline: request.timeoutInterval)
            }
        } onCancel: {
            handle.cancel()
        }
        #else
        let session = self.session
        let delegate = UploadProgressDelegate(progress: progress)
        let (data, response) = try await Self.withDeadline(request.timeoutInterval) {
            try await session.upload(for: request, from: body, delegate: delegate)
        }
        guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, response)
        #endif
    }

    func stream(_ request: URLRequest) -> AsyncThrowingStream<Data, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        #if canImport(FoundationNetworking)
        let delegate = StreamingDelegate(continuation: continuation)
        let streamingSession = URLSession(
            configuration: session.configuration.withoutURLCache, delegate: delegate, delegateQueue: nil)
        let task = streamingSession.dataTask(with: request)
        continuation.onTermination = { _ in
            task.cancel()
            streamingSession.invalidateAndCancel()
        }
        task.resume()
        #else
        let session = self.session
        let task = Task {
            do {
                let (bytes, response) = try await session.bytes(for: request, delegate: nil)
                if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
                    bytes.task.cancel()
                    throw StreamStatusError(status: http.statusCode)
                }
                // Events end with a line break: passing the bytes on line by line delivers each event whole, at once.
                var line = Data()
                for try await byte in bytes {
                    line.append(byte)
                    if byte == UInt8(ascii: "\n") {
                        continuation.yield(line)
                        line.removeAll(keepingCapacity: true)
                    }
                }
                if !line.isEmpty { continuation.yield(line) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        #endif
        return stream
    }

    #if !canImport(FoundationNetworking)
    /// Runs `operation`, cancelling it and failing with `URLError(.timedOut)` when `seconds` pass first.
    static func withDeadline<Result: Sendable>(
        _ seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                throw URLError(.timedOut)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw URLError(.unknown) }
            return first
        }
    }
    #endif
}

/// Holds a data task so a cancellation that races its creation still cancels it, and cancels it when its deadline
/// passes first.
final class TaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var isCancelled = false
    private var timedOut = false
    private var timer: DispatchWorkItem?

    func start(_ task: URLSessionTask, deadline: TimeInterval) {
        let timer = DispatchWorkItem { [weak self] in self?.timeOut() }
        lock.lock()
        self.task = task
        self.timer = timer
        let cancelled = isCancelled
        lock.unlock()
        if cancelled {
            task.cancel()
        } else {
            task.resume()
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, deadline), execute: timer)
        }
    }

    /// Whether the deadline cancelled the task.
    var hasTimedOut: Bool {
        lock.lock()
        defer { lock.unlock() }
        return timedOut
    }

    /// The task completed: stop the deadline.
    func finish() {
        lock.lock()
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        timer?.cancel()
    }

    func cancel() {
        lock.lock()
        isCancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }

    private func timeOut() {
        lock.lock()
        timedOut = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}

#if canImport(FoundationNetworking)
extension URLSessionConfiguration {
    /// A copy of the configuration without a URL cache, for the sessions the transport makes on FoundationNetworking.
    ///
    /// There, a task first looks its request up in the session's cache on a global queue, before its protocol exists;
    /// a cancel that lands in that window (a cancelled Swift task, a deadline, the end of an event stream) reports its
    /// failure unordered against the task's removal from the session's registry, and the process traps with "Trying to
    /// access a behaviour for a task that in not in the registry" (swift-corelibs-foundation issues #3292 and #3296;
    /// managoat/fountain#1554 measured 5 of 5 batches of 2,000 immediate cancels trapping with a cache and none of 20
    /// without). The SDK's requests are API calls the cache must not answer anyway.
    var withoutURLCache: URLSessionConfiguration {
        let copy = (self.copy() as? URLSessionConfiguration) ?? .default
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        return copy
    }
}
#endif

/// A streaming response that answered with a status other than 2xx.
struct StreamStatusError: Error, Equatable {
    /// The HTTP status.
    var status: Int
}

#if canImport(FoundationNetworking)
/// Forwards a streaming response's bytes as they arrive; a non-2xx status ends the stream with a
/// ``StreamStatusError``.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation

    init(continuation: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            continuation.finish(throwing: StreamStatusError(status: http.statusCode))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        session.finishTasksAndInvalidate()
    }
}

/// Collects an upload's answer and forwards its send progress.
final class UploadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let progress: @Sendable (Int64, Int64) -> Void
    private let handle: TaskHandle
    private let continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    private let lock = NSLock()
    private var received = Data()

    init(
        progress: @escaping @Sendable (Int64, Int64) -> Void, handle: TaskHandle,
        continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    ) {
        self.progress = progress
        self.handle = handle
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        progress(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        received.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        session.finishTasksAndInvalidate()
        handle.finish()
        lock.lock()
        let data = received
        lock.unlock()
        if handle.hasTimedOut {
            continuation.resume(throwing: URLError(.timedOut))
        } else if let error {
            continuation.resume(throwing: error)
        } else if let response = task.response as? HTTPURLResponse {
            continuation.resume(returning: (data, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
#else
/// Forwards an upload's send progress; everything else goes to the app session's delegate.
final class UploadProgressDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    private let progress: @Sendable (Int64, Int64) -> Void

    init(progress: @escaping @Sendable (Int64, Int64) -> Void) {
        self.progress = progress
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        progress(totalBytesSent, totalBytesExpectedToSend)
    }
}
#endif
