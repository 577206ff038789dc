// FoundationNetworking (Linux) only: on Apple platforms a request's body is given to the app's own session as data,
// which re-sends it by itself (see URLSessionTransport).
#if canImport(FoundationNetworking)
import DiarySDK
import Foundation
import FoundationNetworking

/// Hands a request's body over again when FoundationNetworking re-sends the request on a new connection.
///
/// Bodies are sent as streams from a companion session whose delegate answers `needNewBodyStream` with a fresh
/// stream over the same bytes. Each session the app configured gets its own companion (its `URLSessionConfiguration`
/// without the URL cache, see `URLSessionConfiguration.withoutURLCache`) with its own delegate, because task
/// identifiers are unique only within one session. Every request goes through the companion, with a body or not.
/// A companion is made on first use and kept while its app session lives: the app session is held weakly, so a new
/// session that happens to reuse a freed one's address never gets the old companion.
///
/// Authentication challenges are passed on to the app session's delegate, so server trust and client certificates
/// are decided by the app. Other delegate callbacks (metrics, redirects,
/// data delivery) are not passed on.
final class RewindableBodies: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private struct Companion {
        weak var base: URLSession?
        let session: URLSession
        let bodies: RewindableBodies
    }

    private static let companions = Locked<[ObjectIdentifier: Companion]>([:])

    /// The bodies of this companion's requests in flight, by task identifier.
    private let bodies = Locked<[Int: Data]>([:])
    /// The app's session, whose delegate answers authentication challenges.
    private weak var base: URLSession?

    private init(base: URLSession) {
        self.base = base
    }

    /// The body-rewinding companion of an app's session, and the delegate that keeps its bodies.
    static func companion(of base: URLSession) -> (session: URLSession, bodies: RewindableBodies) {
        let (made, stale) = companions.withLock { table -> (Companion, [URLSession]) in
            let stale = table.filter { $0.value.base == nil }
            for key in stale.keys { table[key] = nil }
            if let made = table[ObjectIdentifier(base)], made.base === base { return (made, stale.values.map(\.session)) }
            let bodies = RewindableBodies(base: base)
            let made = Companion(
                base: base,
                session: URLSession(configuration: base.configuration.withoutURLCache, delegate: bodies, delegateQueue: nil),
                bodies: bodies)
            table[ObjectIdentifier(base)] = made
            return (made, stale.values.map(\.session))
        }
        for session in stale { session.finishTasksAndInvalidate() }
        return (made.session, made.bodies)
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

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let base, let delegate = base.delegate else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        if let taskDelegate = delegate as? URLSessionTaskDelegate {
            taskDelegate.urlSession(base, task: task, didReceive: challenge, completionHandler: completionHandler)
        } else {
            delegate.urlSession(base, didReceive: challenge, completionHandler: completionHandler)
        }
    }
}
#endif
