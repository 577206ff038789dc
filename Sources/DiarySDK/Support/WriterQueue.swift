import Foundation

/// Runs async critical sections one at a time, first come first served: how the local stores serialise writers
/// without blocking a thread while a writer awaits (its body reads the store asynchronously, its flush runs off the
/// cooperative pool). Readers never take it.
///
/// A caller cancelled while it waits for its turn leaves the queue at once with `CancellationError` and its body
/// never runs (a server whose client has gone stops queueing its write); the callers behind it keep their places. A
/// body that has started runs to its end: cancelling it is the body's business.
package final class WriterQueue: Sendable {
    private struct Waiter {
        let ticket: Int
        /// `nil` once the waiter has left (cancelled) or been handed the queue.
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var isHeld = false
        var waiters: [Waiter] = []
        /// The first waiter not yet handed the queue or gone.
        var next = 0
        var nextTicket = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Whether a body is running or has been handed the queue (for tests).
    package var isHeld: Bool { state.withLock { $0.isHeld } }

    /// How many callers wait for their turn (for tests).
    package var waiterCount: Int {
        state.withLock { state in state.waiters[state.next...].filter { $0.continuation != nil }.count }
    }

    /// Runs `body` once every earlier caller's body has finished.
    /// - Throws: `CancellationError` when the calling task is cancelled before its turn comes (its body does not
    ///   run), or what `body` throws.
    package func run<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await acquire(cancellable: true)
        defer { release() }
        return try await body()
    }

    /// Runs `body` once every earlier caller's body has finished, waiting for its turn even when the calling task is
    /// cancelled: for what must happen whoever asks, such as closing a store.
    package func runToCompletion<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await acquire(cancellable: false)
        defer { release() }
        return try await body()
    }

    private func acquire(cancellable: Bool) async throws {
        let ticket: Int? = state.withLock { state in
            guard state.isHeld else {
                state.isHeld = true
                return nil
            }
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    // Released between the first check and here: take it.
                    guard state.isHeld else {
                        state.isHeld = true
                        return .success(())
                    }
                    // Cancelled before the handler could find this waiter in the line.
                    if cancellable && Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(ticket: ticket, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            guard cancellable else { return }
            let leaving = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let position = state.waiters[state.next...].firstIndex(where: { $0.ticket == ticket }) else {
                    return nil
                }
                defer { state.waiters[position].continuation = nil }
                return state.waiters[position].continuation
            }
            leaving?.resume(throwing: CancellationError())
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            while state.next < state.waiters.count {
                // Handed over: the lock stays held by the next waiter still in line.
                let waiter = state.waiters[state.next].continuation
                state.waiters[state.next].continuation = nil
                state.next += 1
                if state.next > 64 && state.next * 2 > state.waiters.count {
                    state.waiters.removeFirst(state.next)
                    state.next = 0
                }
                if let waiter { return waiter }
            }
            state.waiters.removeAll()
            state.next = 0
            state.isHeld = false
            return nil
        }
        next?.resume()
    }
}
