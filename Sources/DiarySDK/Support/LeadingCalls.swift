import Foundation

/// Joins identical calls already in flight, like ``InFlightCalls``, but runs the call in the first caller's own task
/// instead of a task of its own: for calls that are cheap next to a hand-off between threads, such as a local
/// store's write (on two cores the extra task and the resumption of its caller cost a third of a durable write).
///
/// What the callers see is what ``InFlightCalls`` promises: every caller gets the call's result, a caller cancelled
/// while it waits gets `CancellationError` when the call ends, and the call is cancelled only when every caller has
/// been cancelled. Because the call runs in the first caller's task, that caller's cancellation reaches the call
/// even while others still wait; when the call then fails with `CancellationError`, one of the callers that were not
/// cancelled runs it again in its own task, and the others wait for that run. So use it only for calls that have no
/// effect when they end with `CancellationError` (a store write cancelled before it commits).
package final class LeadingCalls<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private enum Turn {
        /// The call ended: its result.
        case finished(Result<Value, any Error>)
        /// The call was cancelled with its first caller, and this caller runs it again.
        case lead
    }

    private struct Follower {
        let id: Int
        /// Set once the caller waits.
        var continuation: CheckedContinuation<Turn, Never>?
        /// Its turn, when it came before the caller started waiting.
        var pending: Turn?
        var isCancelled = false
    }

    private final class Entry: @unchecked Sendable {
        // Mutable state is only touched under the table's lock.
        /// The callers waiting for the leader, in arrival order.
        var followers: [Follower] = []
        var nextID = 0
    }

    private let entries = Locked<[Key: Entry]>([:])

    /// Creates an empty table.
    package init() {}

    /// How many callers are parked waiting for a call another caller runs (for tests).
    package var followerCount: Int {
        entries.withLock { table in
            table.values.reduce(0) { $0 + $1.followers.filter { $0.continuation != nil }.count }
        }
    }

    /// Runs `work` in this task, or joins the identical call still in flight.
    /// - Returns: The call's result.
    /// - Throws: The call's error, or `CancellationError` when this caller was cancelled.
    package func run(key: Key, _ work: @Sendable () async throws -> Value) async throws -> Value {
        let joined: (Entry, Int)? = entries.withLock { table in
            guard let existing = table[key] else {
                table[key] = Entry()
                return nil
            }
            defer { existing.nextID += 1 }
            existing.followers.append(Follower(id: existing.nextID))
            return (existing, existing.nextID)
        }
        guard let (entry, id) = joined else {
            // Let the callers that started with this one (two `async let`s, a double tap) reach the table before the
            // call runs: without a suspension here a call that never suspends would end before they arrive. A yield
            // puts this task back in line on its executor, which costs far less than a task of its own.
            await Task.yield()
            return try await lead(key: key, work)
        }
        switch await follow(entry, id: id) {
        case .finished(let result):
            try Task.checkCancellation()
            return try result.get()
        case .lead:
            return try await lead(key: key, work)
        }
    }

    /// Runs the call as its leader and hands the outcome to the callers waiting.
    private func lead(key: Key, _ work: @Sendable () async throws -> Value) async throws -> Value {
        let result: Result<Value, any Error>
        do {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        let wakeUps: [(CheckedContinuation<Turn, Never>, Turn)] = entries.withLock { table in
            guard let entry = table[key] else { return [] }
            if case .failure(let error) = result, error is CancellationError,
                let next = entry.followers.firstIndex(where: { !$0.isCancelled })
            {
                // Cancelled with this caller while others still want it: the first of them runs it again; the
                // entry stays, so the rest keep waiting for that run.
                guard let continuation = entry.followers[next].continuation else {
                    entry.followers[next].pending = .lead
                    return []
                }
                entry.followers.remove(at: next)
                return [(continuation, .lead)]
            }
            table[key] = nil
            var wakeUps: [(CheckedContinuation<Turn, Never>, Turn)] = []
            for index in entry.followers.indices {
                if let continuation = entry.followers[index].continuation {
                    wakeUps.append((continuation, .finished(result)))
                } else {
                    entry.followers[index].pending = .finished(result)
                }
            }
            entry.followers.removeAll { $0.continuation != nil }
            return wakeUps
        }
        for (continuation, turn) in wakeUps { continuation.resume(returning: turn) }
        try Task.checkCancellation()
        return try result.get()
    }

    /// Waits for the leader's outcome, or for this caller's turn to lead.
    private func follow(_ entry: Entry, id: Int) async -> Turn {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
                let pending = entries.withLock { _ -> Turn? in
                    guard let index = entry.followers.firstIndex(where: { $0.id == id }) else { return nil }
                    if let pending = entry.followers[index].pending {
                        entry.followers.remove(at: index)
                        return pending
                    }
                    entry.followers[index].continuation = continuation
                    if Task.isCancelled { entry.followers[index].isCancelled = true }
                    return nil
                }
                if let pending { continuation.resume(returning: pending) }
            }
        } onCancel: {
            entries.withLock { _ in
                if let index = entry.followers.firstIndex(where: { $0.id == id }) {
                    entry.followers[index].isCancelled = true
                }
            }
        }
    }
}
