@testable import DiarySDK
import Foundation
import Testing

/// The writer queue the local stores serialise writes with: one body at a time, in arrival order, and a caller
/// cancelled while it waits leaves without running its body or disturbing the others.
@Suite("Writer queue")
struct WriterQueueTests {
    /// A gate a body waits on until the test opens it.
    private final class Gate: Sendable {
        private let opened = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let isOpen = opened.withLock { state -> Bool in
                    if !state.isOpen { state.waiters.append(continuation) }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
        }

        func open() {
            let waiters = opened.withLock { state in
                state.isOpen = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Waits until `condition` holds, yielding meanwhile; the bound is for a loaded machine running the whole suite
    /// (the cooperative pool has two threads here, and 70 s was seen for one test), and only turns a queue that would
    /// hang into a failure.
    private func eventually(_ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(300)
        while !condition() {
            guard Date() < deadline else { throw CancellationError() }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    @Test func bodiesRunOneAtATimeInArrivalOrder() async throws {
        let queue = WriterQueue()
        let log = Locked<[Int]>([])
        let running = Locked(0)
        let gate = Gate()
        let first = Task {
            try await queue.run {
                log.withLock { $0.append(0) }
                await gate.wait()
            }
        }
        try await eventually { log.withLock { $0 == [0] } }
        var others: [Task<Void, any Error>] = []
        for number in 1...20 {
            others.append(Task {
                try await queue.run {
                    let overlapping = running.withLock { count -> Bool in
                        count += 1
                        return count > 1
                    }
                    #expect(!overlapping)
                    log.withLock { $0.append(number) }
                    await Task.yield()
                    running.withLock { $0 -= 1 }
                }
            })
            // Each waiter is in line before the next one arrives, so arrival order is known.
            try await eventually { queue.waiterCount == number }
        }
        gate.open()
        try await first.value
        for task in others { try await task.value }
        #expect(log.withLock { $0 } == Array(0...20))
    }

    @Test func aCallerCancelledWhileWaitingLeavesAtOnceAndTheOthersKeepTheirPlaces() async throws {
        let queue = WriterQueue()
        let log = Locked<[String]>([])
        let gate = Gate()
        let holder = Task { try await queue.run { await gate.wait() } }
        try await eventually { queue.isHeld }
        let before = Task { try await queue.run { log.withLock { $0.append("before") } } }
        try await eventually { queue.waiterCount == 1 }
        let cancelled = Task { try await queue.run { log.withLock { $0.append("cancelled") } } }
        try await eventually { queue.waiterCount == 2 }
        let after = Task { try await queue.run { log.withLock { $0.append("after") } } }
        try await eventually { queue.waiterCount == 3 }

        cancelled.cancel()
        // It leaves while the queue is still held: it does not wait for the holder (a queue that kept it in line
        // would fail here after the bound, not hang).
        let outcome = Locked<Result<Void, any Error>?>(nil)
        Task { let result = await cancelled.result; outcome.withLock { $0 = result } }
        try await eventually { outcome.withLock { $0 != nil } }
        #expect(throws: CancellationError.self) { try outcome.withLock { $0 }!.get() }
        #expect(queue.waiterCount == 2)

        gate.open()
        try await holder.value
        try await before.value
        try await after.value
        #expect(log.withLock { $0 } == ["before", "after"])
        #expect(!queue.isHeld)
    }

    @Test func aCallerAlreadyCancelledWhenItArrivesAtAHeldQueueDoesNotRunItsBody() async throws {
        let queue = WriterQueue()
        let gate = Gate()
        let ran = Locked(false)
        let holder = Task { try await queue.run { await gate.wait() } }
        try await eventually { queue.isHeld }
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.run { ran.withLock { $0 = true } }
        }
        let outcome = Locked<Result<Void, any Error>?>(nil)
        Task { let result = await late.result; outcome.withLock { $0 = result } }
        try await eventually { outcome.withLock { $0 != nil } }
        #expect(throws: CancellationError.self) { try outcome.withLock { $0 }!.get() }
        gate.open()
        try await holder.value
        #expect(!ran.withLock { $0 })
        // The queue is free and works.
        #expect(try await queue.run { 42 } == 42)
    }

    @Test func runToCompletionWaitsForItsTurnEvenWhenCancelled() async throws {
        let queue = WriterQueue()
        let gate = Gate()
        let holder = Task { try await queue.run { await gate.wait() } }
        try await eventually { queue.isHeld }
        let closing = Task { try await queue.runToCompletion { "closed" } }
        try await eventually { queue.waiterCount == 1 }
        closing.cancel()
        gate.open()
        try await holder.value
        #expect(try await closing.value == "closed")
    }

    @Test func anUncontendedCallerAlreadyCancelledStillRunsItsBody() async throws {
        // Nothing to wait for, so nothing to leave: cancelling a body is the body's business.
        let queue = WriterQueue()
        let result = try await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await queue.run { Task.isCancelled }
        }.value
        #expect(result)
    }
}
