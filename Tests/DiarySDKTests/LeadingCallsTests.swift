@testable import DiarySDK
import Foundation
import Testing

/// The joining of identical writes on the local stores: the first caller runs the call in its own task, the others
/// share its result, and cancellation behaves as with a call in a task of its own.
@Suite("Leading calls")
struct LeadingCallsTests {
    /// A gate the call waits on until the test opens it; waiting ends early, with `CancellationError`, when the
    /// waiting task is cancelled (as a store write waiting for its turn does).
    private final class Gate: Sendable {
        private let state = Locked<(isOpen: Bool, waiters: [Int: CheckedContinuation<Void, any Error>], next: Int)>(
            (false, [:], 0))

        func wait() async throws {
            let ticket = state.withLock { state -> Int in
                defer { state.next += 1 }
                return state.next
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let outcome = state.withLock { state -> Result<Void, any Error>? in
                        if state.isOpen { return .success(()) }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiters[ticket] = continuation
                        return nil
                    }
                    if let outcome { continuation.resume(with: outcome) }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume(throwing: CancellationError())
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.isOpen = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Waits until `condition` holds; the bound only turns a hang into a failure on a loaded machine.
    private func eventually(_ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(300)
        while !condition() {
            guard Date() < deadline else { throw CancellationError() }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    @Test func identicalCallsAtOnceRunOnceAndShareTheResult() async throws {
        let calls = LeadingCalls<String, Int>()
        let runs = Locked(0)
        let gate = Gate()
        let work: @Sendable () async throws -> Int = {
            let run = runs.withLock { count -> Int in
                count += 1
                return count
            }
            try await gate.wait()
            return run * 10
        }
        let leader = Task { try await calls.run(key: "a", work) }
        try await eventually { runs.withLock { $0 } == 1 }
        let followers = (0..<5).map { _ in Task { try await calls.run(key: "a", work) } }
        try await eventually { calls.followerCount == 5 }
        // Another key is another call.
        let other = Task { try await calls.run(key: "b") { 7 } }
        #expect(try await other.value == 7)

        gate.open()
        #expect(try await leader.value == 10)
        for follower in followers { #expect(try await follower.value == 10) }
        #expect(runs.withLock { $0 } == 1)
        // Once it has ended, the same call runs again.
        #expect(try await calls.run(key: "a", work) == 20)
    }

    @Test func aFailureIsSharedByEveryCaller() async throws {
        struct Failure: Error, Equatable {}
        let calls = LeadingCalls<String, Int>()
        let gate = Gate()
        let leader = Task {
            try await calls.run(key: "a") {
                try await gate.wait()
                throw Failure()
            }
        }
        try await eventually { calls.followerCount == 0 }
        let follower = Task { try await calls.run(key: "a") { 1 } }
        try await eventually { calls.followerCount == 1 }
        gate.open()
        await #expect(throws: Failure.self) { try await leader.value }
        await #expect(throws: Failure.self) { try await follower.value }
    }

    @Test func aFollowerCancelledWhileWaitingGetsCancellationWhenTheCallEndsAndTheOthersTheResult() async throws {
        let calls = LeadingCalls<String, Int>()
        let gate = Gate()
        let runs = Locked(0)
        let work: @Sendable () async throws -> Int = {
            runs.withLock { $0 += 1 }
            try await gate.wait()
            return 42
        }
        let leader = Task { try await calls.run(key: "a", work) }
        try await eventually { runs.withLock { $0 } == 1 }
        let cancelled = Task { try await calls.run(key: "a", work) }
        let other = Task { try await calls.run(key: "a", work) }
        try await eventually { calls.followerCount == 2 }
        cancelled.cancel()
        gate.open()
        #expect(try await leader.value == 42)
        #expect(try await other.value == 42)
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(runs.withLock { $0 } == 1)
    }

    @Test func whenTheLeaderIsCancelledAFollowerStillWaitingRunsTheCallAgain() async throws {
        let calls = LeadingCalls<String, Int>()
        let gate = Gate()
        let runs = Locked(0)
        let work: @Sendable () async throws -> Int = {
            let run = runs.withLock { count -> Int in
                count += 1
                return count
            }
            try await gate.wait()
            return run
        }
        let leader = Task { try await calls.run(key: "a", work) }
        try await eventually { runs.withLock { $0 } == 1 }
        let follower = Task { try await calls.run(key: "a", work) }
        let another = Task { try await calls.run(key: "a", work) }
        try await eventually { calls.followerCount == 2 }

        leader.cancel()
        // The leader's run ends with its cancellation; a follower leads a second run, the other follows it.
        await #expect(throws: CancellationError.self) { try await leader.value }
        try await eventually { runs.withLock { $0 } == 2 }
        #expect(calls.followerCount == 1)
        gate.open()
        #expect(try await follower.value == 2)
        #expect(try await another.value == 2)
        #expect(runs.withLock { $0 } == 2)
    }

    @Test func whenEveryCallerIsCancelledTheCallIsCancelled() async throws {
        let calls = LeadingCalls<String, Int>()
        let gate = Gate()
        let runs = Locked(0)
        let work: @Sendable () async throws -> Int = {
            runs.withLock { $0 += 1 }
            try await gate.wait()
            return 1
        }
        let leader = Task { try await calls.run(key: "a", work) }
        try await eventually { runs.withLock { $0 } == 1 }
        let follower = Task { try await calls.run(key: "a", work) }
        try await eventually { calls.followerCount == 1 }
        // Parked, so its cancellation is recorded as it happens.
        follower.cancel()
        leader.cancel()
        // Nobody is left to run it again: the call ends without the gate ever opening.
        await #expect(throws: CancellationError.self) { try await leader.value }
        await #expect(throws: CancellationError.self) { try await follower.value }
        #expect(runs.withLock { $0 } == 1)
        #expect(calls.followerCount == 0)
    }
}
