// RewindableBodies exists with FoundationNetworking only (Apple platforms send bodies on the app's own session).
#if canImport(FoundationNetworking)
import DiarySDK
@testable import DiarySDKHTTP
import Foundation
import FoundationNetworking
import Testing

@Suite("HTTP backend: request bodies handed over again")
struct RewindableBodiesTests {
    static func read(_ stream: InputStream?) -> Data {
        guard let stream else { return Data() }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }

    /// What the URL loading system gets when it asks a companion for a task's body again.
    static func resent(_ task: URLSessionTask, by companion: (session: URLSession, bodies: RewindableBodies)) -> Data {
        let stream = Locked<InputStream?>(nil)
        companion.bodies.urlSession(companion.session, task: task) { given in stream.withLock { $0 = given } }
        return read(stream.current)
    }

    @Test func twoAppSessionsTasksWithTheSameIdentifierKeepTheirOwnBodies() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/v1/posts"))
        let phoneA = URLSession(configuration: .ephemeral)
        let phoneB = URLSession(configuration: .ephemeral)
        let companionA = RewindableBodies.companion(of: phoneA)
        let companionB = RewindableBodies.companion(of: phoneB)
        let taskA = companionA.session.dataTask(with: url)
        let taskB = companionB.session.dataTask(with: url)
        #expect(taskA.taskIdentifier == taskB.taskIdentifier, "identifiers are unique only within a session")
        companionA.bodies.keep(Data("body A".utf8), for: taskA.taskIdentifier)
        companionB.bodies.keep(Data("body B".utf8), for: taskB.taskIdentifier)
        #expect(Self.resent(taskA, by: companionA) == Data("body A".utf8))
        #expect(Self.resent(taskB, by: companionB) == Data("body B".utf8))
        companionB.bodies.forget(taskB.taskIdentifier)
        #expect(Self.resent(taskA, by: companionA) == Data("body A".utf8), "B finishing does not drop A's body")
        #expect(RewindableBodies.companion(of: phoneA).session === companionA.session, "made once per app session")
        taskA.cancel()
        taskB.cancel()
    }
}
#endif
