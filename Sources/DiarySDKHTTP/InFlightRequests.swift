import DiarySDK
import Foundation

/// Joins identical calls already in flight, so an impatient caller's second tap shares the first request instead of
/// sending another. The shared request is cancelled only when every caller waiting for it has been cancelled.
final class InFlightRequests: Sendable {
    private final class Entry: @unchecked Sendable {
        let task: Task<Data, any Error>
        var waiters = 0

        init(task: Task<Data, any Error>) {
            self.task = task
        }
    }

    private let entries = Locked<[String: Entry]>([:])

    func run(key: String, _ work: @escaping @Sendable () async throws -> Data) async throws -> Data {
        let entry: Entry = entries.withLock { table in
            if let existing = table[key] {
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
        return try await withTaskCancellationHandler {
            try await entry.task.value
        } onCancel: {
            let last = entries.withLock { _ in entry.waiters <= 1 }
            if last { entry.task.cancel() }
        }
    }
}
