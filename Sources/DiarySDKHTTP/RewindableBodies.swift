import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hands a request's body over again when the URL loading system re-sends the request on a new connection.
///
/// Bodies are sent as streams from a session whose delegate answers `needNewBodyStream` with a fresh stream over
/// the same bytes. One such session exists per session the app configured (same `URLSessionConfiguration`), made
/// on first use and kept for the life of the process.
final class RewindableBodies: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    /// The bodies of the requests in flight, by task identifier.
    static let shared = RewindableBodies()

    private let bodies = Locked<[Int: Data]>([:])
    private static let sessions = Locked<[ObjectIdentifier: URLSession]>([:])

    /// The body-rewinding companion of an app's session.
    static func session(like base: URLSession) -> URLSession {
        sessions.withLock { table in
            if let made = table[ObjectIdentifier(base)] { return made }
            let made = URLSession(configuration: base.configuration, delegate: shared, delegateQueue: nil)
            table[ObjectIdentifier(base)] = made
            return made
        }
    }

    /// Remembers a body while its task runs.
    func keep(_ body: Data, for task: Int) {
        bodies.withLock { $0[task] = body }
    }

    /// Forgets a body once its task has finished.
    func forget(_ task: Int) {
        _ = bodies.withLock { $0.removeValue(forKey: task) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        completionHandler(bodies.current[task.taskIdentifier].map { InputStream(data: $0) })
    }
}
