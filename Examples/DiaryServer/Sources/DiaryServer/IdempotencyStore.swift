import Foundation

/// Remembers the response to each write by (user, `Idempotency-Key`) for a day, so a retried write returns the
/// first response instead of acting twice. A retry that arrives while the first attempt is still running waits for
/// it and gets the same response.
actor IdempotencyStore {
    struct Stored: Sendable {
        var status: Int
        var contentType: String?
        var body: Data
    }

    private struct Entry {
        var fingerprint: String
        var task: Task<Stored, Never>
        var storedAt: Date
    }

    private var entries: [String: Entry] = [:]
    private let lifetime: TimeInterval = 24 * 60 * 60

    enum Outcome: Sendable {
        case response(Stored, replayed: Bool)
        case mismatch
    }

    /// Runs `work` once per key; later calls with the same key replay its response.
    func run(key: String, fingerprint: String, _ work: @escaping @Sendable () async -> Stored) async -> Outcome {
        let now = Date()
        if let entry = entries[key], now.timeIntervalSince(entry.storedAt) < lifetime {
            guard entry.fingerprint == fingerprint else { return .mismatch }
            return .response(await entry.task.value, replayed: true)
        }
        if entries.count > 10_000 { entries = entries.filter { now.timeIntervalSince($0.value.storedAt) < lifetime } }
        let task = Task { await work() }
        entries[key] = Entry(fingerprint: fingerprint, task: task, storedAt: now)
        let stored = await task.value
        if stored.status >= 500 { entries[key] = nil }
        return .response(stored, replayed: false)
    }
}
