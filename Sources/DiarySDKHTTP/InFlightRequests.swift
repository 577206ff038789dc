import DiarySDK
import Foundation

/// Joins identical calls already in flight, so an impatient caller's second tap shares the first request instead of
/// sending another.
///
/// The shared request runs in a task of its own. It is cancelled when every caller waiting for it has been cancelled;
/// a caller cancelled while others still wait gets a cancellation error when the request ends, and the others get
/// its result. A request that has been cancelled is never joined: the next caller starts a new one.
final class InFlightRequests: Sendable {
    private final class Entry: @unchecked Sendable {
        // Mutable state is only touched under the table's lock.
        let task: Task<Data, any Error>
        var waiters = 0
        var cancelledWaiters = 0

        init(task: Task<Data, any Error>) {
            self.task = task
        }
    }

    private let entries = Locked<[String: Entry]>([:])

    /// How many callers are waiting for shared requests (for tests).
    var waiterCount: Int {
        entries.withLock { table in table.values.reduce(0) { $0 + $1.waiters } }
    }

    func run(key: String, _ work: @escaping @Sendable () async throws -> Data) async throws -> Data {
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
        let data = try await withTaskCancellationHandler {
            try await entry.task.value
        } onCancel: {
            let everyoneCancelled = entries.withLock { _ in
                entry.cancelledWaiters += 1
                return entry.cancelledWaiters >= entry.waiters
            }
            if everyoneCancelled { entry.task.cancel() }
        }
        // The request finished for the others, but this caller no longer wants it.
        try Task.checkCancellation()
        return data
    }
}
