// The examples in the doc comments of the server's protocols (Examples/DiaryServer/Sources/DiaryServer), compiled
// here because they implement the server's internal protocols; the SDK's Examples/Tests/DocSnippetTests checks that
// each block is the shown part of one of these, and the tests below (and ServerSessionStoreTests) run them.
import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

// snippet.begin: Examples/DiaryServer/Sources/DiaryServer/IdempotencyRecords.swift
// snippet.show
actor MyRecords: IdempotencyRecords {
    private var tasks: [String: (fingerprint: String, task: Task<StoredResponse, Never>)] = [:]
    func run(
        key: String, fingerprint: String, _ work: @escaping @Sendable () async -> StoredResponse
    ) async throws -> IdempotencyOutcome {
        if let held = tasks[key] {
            guard held.fingerprint == fingerprint else { return .mismatch }
            return .response(await held.task.value, replayed: true)
        }
        let task = Task { await work() }
        tasks[key] = (fingerprint, task)
        let response = await task.value
        if response.status >= 500 { tasks[key] = nil }
        return .response(response, replayed: false)
    }
}
// snippet.hide

// snippet.begin: Examples/DiaryServer/Sources/DiaryServer/ClientRateLimiter.swift
// snippet.show
final class MyLimiter: ClientRateLimiter {
    let buckets = Protected<[String: Int]>([:])
    func take(from client: String) async throws -> TimeInterval? {
        buckets.withLock { buckets in
            guard buckets[client, default: 0] < 10 else { return 60 }   // no refill: an example only
            buckets[client, default: 0] += 1
            return nil
        }
    }
}
// snippet.hide

// snippet.begin: Examples/DiaryServer/Sources/DiaryServer/ServerSessionStore.swift
// snippet.show
actor MySessionStore: ServerSessionStore {
    private var sessions: [String: ServerSession] = [:]   // a real store keeps them somewhere durable
    func create(_ session: ServerSession, id: String) async throws { sessions[id] = session }
    func session(_ id: String) async throws -> ServerSession? { sessions[id] }
    func update<Result: Sendable>(
        _ id: String, _ body: @Sendable (ServerSession?) -> (ServerSessionChange, Result)
    ) async throws -> Result {
        let (change, result) = body(sessions[id])   // no suspension between read and write: atomic
        switch change {
        case .keep: break
        case .save(let session): sessions[id] = session
        case .remove: sessions[id] = nil
        }
        return result
    }
    func updateAll(_ body: @Sendable (inout ServerSession) -> Void) async throws {
        for id in sessions.keys { body(&sessions[id]!) }
    }
    func remove(_ id: String) async throws { sessions[id] = nil }
    func removeAll(of userID: User.ID) async throws { sessions = sessions.filter { $0.value.userID != userID } }
    func removeSessions(refreshedBefore cutoff: Date) async throws -> Int {
        let before = sessions.count
        sessions = sessions.filter { $0.value.refreshedAt.map { $0 >= cutoff } ?? true }
        return before - sessions.count
    }
}
// snippet.hide

/// The examples above keep the contracts their doc comments state (the session store runs the whole behavioural
/// suite of ServerSessionStoreTests as its `example` kind).
@Suite("Doc comment examples of the server")
struct DocCommentExampleTests {
    static func status(_ outcome: IdempotencyOutcome) -> (status: Int, replayed: Bool)? {
        if case .response(let response, let replayed) = outcome { return (response.status, replayed) }
        return nil
    }

    @Test func theExampleIdempotencyRecordsReplayRefuseAMismatchAndForgetAServerError() async throws {
        let records = MyRecords()
        let runs = Protected(0)
        func work(_ status: Int) -> @Sendable () async -> StoredResponse {
            { runs.withLock { $0 += 1 }; return StoredResponse(status: status, body: Data("ok".utf8)) }
        }
        #expect(Self.status(try await records.run(key: "k", fingerprint: "f", work(201)))! == (201, false))
        #expect(Self.status(try await records.run(key: "k", fingerprint: "f", work(201)))! == (201, true))
        if case .mismatch = try await records.run(key: "k", fingerprint: "other", work(201)) {} else {
            Issue.record("another fingerprint with the same key is not a mismatch")
        }
        #expect(runs.current == 1)
        #expect(Self.status(try await records.run(key: "e", fingerprint: "f", work(503)))! == (503, false))
        #expect(Self.status(try await records.run(key: "e", fingerprint: "f", work(201)))! == (201, false))
        #expect(runs.current == 3)
    }

    @Test func theExampleLimiterAllowsTenRequestsPerClient() async throws {
        let limiter = MyLimiter()
        for _ in 0..<10 { #expect(try await limiter.take(from: "192.0.2.1") == nil) }
        #expect(try await limiter.take(from: "192.0.2.1") == 60)
        #expect(try await limiter.take(from: "192.0.2.2") == nil)
    }
}
