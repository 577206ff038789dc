import DiarySDK
@testable import DiarySDKInMemory
import Foundation
import Testing

/// A local change stream lives exactly as long as the session that opened it.
@Suite("Local change streams and the session")
struct ChangeStreamSessionTests {
    /// Whether `stream` finishes within ten seconds (a generous bound: it should end at once) after `action`.
    static func finishes(_ stream: AsyncStream<ChangeEvent>, after action: () async throws -> Void) async throws -> Bool {
        let reader = Task { () -> Bool in
            for await _ in stream {}
            return !Task.isCancelled
        }
        try await action()
        let timeout = Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            reader.cancel()
        }
        defer { timeout.cancel() }
        return await reader.value
    }

    /// The race a sign-out could lose: the stream handled the sign-out's own store write before the in-memory
    /// session was cleared, so no later write is left to notice the end. Clearing the session must end the stream.
    @Test func aStreamEndsWhenItsSessionIsClearedEvenWithNoWriteAfterwards() async throws {
        let backend = InMemoryBackend()
        let engine = DiaryEngine(
            store: backend.store, environment: backend.configuration.environment,
            configuration: backend.configuration.engine, sessionStore: InMemorySessionStore())
        _ = try await engine.signUp(.init(email: "alice@example.com", password: "correct horse battery", nickname: "alice"))
        guard case .session(let context) = engine.principal else {
            Issue.record("an app's engine has a session")
            return
        }
        let stream = engine.changes()
        #expect(try await Self.finishes(stream) { try await context.set(nil) })
    }

    @Test func aStreamOpenedUnderAnEarlierSessionEndsWhenAnotherUserSignsIn() async throws {
        let backend = InMemoryBackend()
        let engine = DiaryEngine(
            store: backend.store, environment: backend.configuration.environment,
            configuration: backend.configuration.engine, sessionStore: InMemorySessionStore())
        _ = try await engine.signUp(.init(email: "alice@example.com", password: "correct horse battery", nickname: "alice"))
        let stream = engine.changes()
        #expect(try await Self.finishes(stream) {
            _ = try await engine.signUp(.init(email: "bob@example.com", password: "correct horse battery", nickname: "bob"))
        })
    }
}
