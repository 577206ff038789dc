import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

/// Requests cancelled as they start, many at once, against the reference server on loopback. On FoundationNetworking
/// a cancel that lands while a task looks its request up in a URL cache traps the whole process ("Trying to access a
/// behaviour for a task that in not in the registry"); the transport's sessions have no cache, so the process lives.
@Suite("Requests cancelled as they start")
struct CancelledRequestTests {
    @Test func thousandsOfRequestsCancelledAsTheyStartEndAsCancelledAndNeverTrapTheProcess() async throws {
        let server = try await ReferenceServer.start(extraArguments: [])
        defer { server.stop() }
        let backend = HTTPBackend(configuration: .init(baseURL: server.baseURL))
        _ = try await backend.repositories.accounts.signUp(
            SignUpRequest(email: "cancel@example.com", password: "correct horse battery", nickname: "canceller"))
        let posts = backend.repositories.posts
        var outcomes: [String: Int] = [:]
        for batch in 0..<80 {
            let tasks = (0..<50).map { _ in Task { try await posts.feed(page: .first()) } }
            for (index, task) in tasks.enumerated() {
                // Some cancelled before they start, some as they start, some after.
                if (batch + index) % 3 == 1 { await Task.yield() }
                task.cancel()
            }
            for task in tasks {
                switch await task.result {
                case .success: outcomes["answered", default: 0] += 1
                case .failure(let error as DiaryError): outcomes[error.code.rawValue, default: 0] += 1
                case .failure(let error): outcomes["\(type(of: error))", default: 0] += 1
                }
            }
        }
        // Every request ended as cancelled or answered: nothing else, and the process is still here to say so.
        #expect(Set(outcomes.keys).isSubset(of: ["answered", DiaryError.Code.cancelled.rawValue]), "\(outcomes)")
        #expect(outcomes[DiaryError.Code.cancelled.rawValue, default: 0] > 0, "\(outcomes)")
        // And the backend still works.
        _ = try await posts.feed(page: .first())
    }
}
