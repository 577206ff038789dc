import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLSession` delegate behind ``URLSessionFeedFetcher``: collects each task's body under the size limit, vets
/// redirects, and resumes the waiting fetch when the task ends.
final class FeedFetchSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// A finished transfer: the final response and its body.
    struct Completed: @unchecked Sendable {
        var response: HTTPURLResponse
        var data: Data
    }

    private struct Transfer {
        var continuation: CheckedContinuation<Completed, any Error>
        var request: FeedFetchRequest
        var headers: [(String, String)]
        var data = Data()
        var redirects = 0
        /// Set when the delegate itself stopped the transfer (size limit, redirect policy).
        var failure: DiaryError?
    }

    private let maxBytes: Int
    private let maxRedirects: Int
    private let transfers = Locked<[Int: Transfer]>([:])

    init(maxBytes: Int, maxRedirects: Int) {
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
    }

    /// Registers a task and starts it.
    func begin(
        _ task: URLSessionDataTask, request: FeedFetchRequest, headers: [(String, String)],
        continuation: CheckedContinuation<Completed, any Error>
    ) {
        transfers.withLock {
            $0[task.taskIdentifier] = Transfer(continuation: continuation, request: request, headers: headers)
        }
        task.resume()
    }

    private func stop(_ task: URLSessionTask, _ error: DiaryError) {
        transfers.withLock { $0[task.taskIdentifier]?.failure = error }
        task.cancel()
    }

    private func tooLarge(_ task: URLSessionTask) -> DiaryError {
        let address = transfers.withLock { $0[task.taskIdentifier]?.request.url.absoluteString } ?? "the address"
        return DiaryError(
            .invalidInput, "the document at \(address) is larger than the limit of \(maxBytes) bytes", field: "feedURL",
            reason: .tooLong)
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if response.expectedContentLength > Int64(maxBytes) {
            stop(dataTask, tooLarge(dataTask))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = transfers.withLock { transfers -> Bool in
            guard transfers[dataTask.taskIdentifier] != nil else { return false }
            transfers[dataTask.taskIdentifier]!.data.append(data)
            return transfers[dataTask.taskIdentifier]!.data.count > maxBytes
        }
        if over { stop(dataTask, tooLarge(dataTask)) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let verdict = transfers.withLock { transfers -> (DiaryError?, [(String, String)]) in
            guard var transfer = transfers[task.taskIdentifier] else { return (nil, []) }
            transfer.redirects += 1
            let source = transfer.request.url.absoluteString
            var failure: DiaryError?
            if transfer.redirects > maxRedirects {
                failure = DiaryError(
                    .invalidInput, "\(source) redirected more than \(maxRedirects) times", field: "feedURL", reason: .invalidReference)
            } else if let target = request.url, (try? Validation.webURL(target, field: "feedURL")) == nil {
                failure = DiaryError(
                    .invalidInput, "\(source) redirected to \(target.absoluteString), which is not an http(s) address",
                    field: "feedURL", reason: .invalidReference)
            }
            transfer.failure = failure
            transfers[task.taskIdentifier] = transfer
            return (failure, transfer.headers)
        }
        if verdict.0 != nil {
            completionHandler(nil)
            return
        }
        var next = request
        for (name, value) in verdict.1 where next.value(forHTTPHeaderField: name) == nil {
            next.setValue(value, forHTTPHeaderField: name)
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let address = transfer.request.url.absoluteString
        if let failure = transfer.failure {
            transfer.continuation.resume(throwing: failure)
        } else if let error {
            transfer.continuation.resume(throwing: Self.map(error, address: address))
        } else if let response = task.response as? HTTPURLResponse {
            transfer.continuation.resume(returning: Completed(response: response, data: transfer.data))
        } else {
            transfer.continuation.resume(
                throwing: DiaryError(.unavailable, "\(address) did not answer with an HTTP response"))
        }
    }

    /// Maps a transport error to a `DiaryError`.
    static func map(_ error: any Error, address: String) -> DiaryError {
        let underlying = error as NSError
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled:
                return DiaryError(.cancelled, "fetching \(address) was cancelled", underlying: urlError)
            case .timedOut:
                return DiaryError(.unavailable, "\(address) did not answer in time", underlying: urlError)
            case .unsupportedURL, .badURL:
                return DiaryError(
                    .invalidInput, "\(address) cannot be fetched", field: "feedURL", reason: .invalidFormat, underlying: urlError)
            default:
                return DiaryError(.unavailable, "\(address) could not be reached: \(urlError.localizedDescription)", underlying: urlError)
            }
        }
        return DiaryError(.unavailable, "\(address) could not be reached: \(underlying.localizedDescription)", underlying: error)
    }
}
