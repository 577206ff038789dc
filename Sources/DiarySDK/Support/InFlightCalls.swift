import Foundation

/// Joins identical calls already in flight, so an impatient caller's second tap shares the first call instead of
/// making another: the one mechanism behind "no duplicate calls while one is in flight" on every backend (the HTTP
/// client joins identical requests with it, the engine joins identical writes by the same user with it).
///
/// The shared call runs in a task of its own. It is cancelled when every caller waiting for it has been cancelled;
/// a caller cancelled while others still wait gets a cancellation error when the call ends, and the others get its
/// result. A call that has been cancelled is never joined: the next caller starts a new one. Once every caller has
/// its result the call is forgotten, so the same call made afterwards runs again.
package final class InFlightCalls<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Entry: @unchecked Sendable {
        // Mutable state is only touched under the table's lock.
        let task: Task<Value, any Error>
        var waiters = 0
        var cancelledWaiters = 0

        init(task: Task<Value, any Error>) {
            self.task = task
        }
    }

    private let entries = Locked<[Key: Entry]>([:])

    /// Creates an empty table.
    package init() {}

    /// How many callers are waiting for shared calls (for tests).
    package var waiterCount: Int {
        entries.withLock { table in table.values.reduce(0) { $0 + $1.waiters } }
    }

    /// Runs `work`, or joins the call with the same key still in flight.
    /// - Parameters:
    ///   - key: What makes two calls identical.
    ///   - work: The call.
    /// - Returns: The shared call's result.
    /// - Throws: The shared call's error, or `CancellationError` when this caller was cancelled.
    package func run(key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let entry: Entry = entries.withLock { table in
            if let existing = table[key], !existing.task.isCancelled {
                existing.waiters += 1
                return existing
            }
            let created = Entry(task: Task { try await work() })
            created.waiters = 1
            table[key] = created
            return created
        }
        defer {
            entries.withLock { table in
                entry.waiters -= 1
                if entry.waiters == 0, table[key] === entry { table[key] = nil }
            }
        }
        let value = try await withTaskCancellationHandler {
            try await entry.task.value
        } onCancel: {
            let everyoneCancelled = entries.withLock { _ in
                entry.cancelledWaiters += 1
                return entry.cancelledWaiters >= entry.waiters
            }
            if everyoneCancelled { entry.task.cancel() }
        }
        // The call finished for the others, but this caller no longer wants it.
        try Task.checkCancellation()
        return value
    }
}
