import Foundation

/// Runs async critical sections one at a time, first come first served: how the local stores serialise writers
/// without blocking a thread while a writer awaits (its body reads the store asynchronously, its flush runs off the
/// cooperative pool). Readers never take it.
package final class WriterQueue: Sendable {
    private struct State {
        var isHeld = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var next = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Runs `body` once every earlier caller's body has finished.
    package func run<Result>(_ body: () async throws -> Result) async throws -> Result {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        let acquired = state.withLock { state -> Bool in
            guard state.isHeld else {
                state.isHeld = true
                return true
            }
            return false
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                // Released between the first check and here: take it.
                guard state.isHeld else {
                    state.isHeld = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.next < state.waiters.count else {
                state.waiters.removeAll()
                state.next = 0
                state.isHeld = false
                return nil
            }
            // Handed over: the lock stays held by the next waiter.
            let waiter = state.waiters[state.next]
            state.next += 1
            if state.next > 64 && state.next * 2 > state.waiters.count {
                state.waiters.removeFirst(state.next)
                state.next = 0
            }
            return waiter
        }
        next?.resume()
    }
}
