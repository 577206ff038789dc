import Foundation

/// Remembers the response to each write by (user, `Idempotency-Key`) for a day, in this process's memory, so a retried
/// write returns the first response instead of acting twice (``IdempotencyRecords``: the file store and `--in-memory`,
/// which are one process). A retry that arrives while the first attempt is still running waits for it and gets the
/// same response.
///
/// Bounded: it holds at most `maximumEntries` keys and `maximumBytes` of keys, fingerprints and stored bodies. Keys
/// leave in the order they arrived: when they expire (`lifetime` after the first request), or, when a new key would
/// pass a bound, the oldest keys first. A retry whose key was evicted early runs again like a new request.
///
/// - Complexity: Lookup is O(1) (a dictionary); expiry and eviction take keys from the front of an insertion-order
///   queue, O(1) amortized per key, so neither grows with the number of keys held.
actor IdempotencyStore: IdempotencyRecords {
    /// A response as it is replayed.
    typealias Stored = StoredResponse
    /// What a call with a key gets.
    typealias Outcome = IdempotencyOutcome

    /// The store's bounds.
    struct Configuration: Sendable {
        /// How long a key is remembered.
        var lifetime: TimeInterval = 24 * 60 * 60
        /// The most keys held.
        var maximumEntries = 50_000
        /// The most bytes held (keys, fingerprints and response bodies).
        var maximumBytes = 64 * 1024 * 1024
    }

    private struct Entry {
        var sequence: UInt64
        var fingerprint: String
        var task: Task<Stored, Never>
        var storedAt: Date
        var bytes: Int
    }

    private let configuration: Configuration
    private let now: @Sendable () -> Date
    private var entries: [String: Entry] = [:]
    private var order = FIFOQueue<(key: String, sequence: UInt64)>()
    private var nextSequence: UInt64 = 0
    private var bytes = 0

    /// Creates an empty store.
    /// - Parameters:
    ///   - configuration: Lifetime and bounds.
    ///   - now: The clock (tests pass their own).
    init(configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.now = now
    }

    /// The number of keys held.
    var count: Int { entries.count }
    /// The bytes held (keys, fingerprints and stored bodies).
    var storedBytes: Int { bytes }
    /// The length of the insertion-order queue (live keys and records of dropped ones).
    var queueLength: Int { order.count }

    /// Runs `work` once per key; later calls with the same key replay its response. A response with a 5xx status is
    /// not kept, so a retry runs again.
    func run(key: String, fingerprint: String, _ work: @escaping @Sendable () async -> Stored) async -> Outcome {
        let date = now()
        removeExpired(at: date)
        if let entry = entries[key] {
            guard entry.fingerprint == fingerprint else { return .mismatch }
            return .response(await entry.task.value, replayed: true)
        }
        nextSequence += 1
        let sequence = nextSequence
        let task = Task { await work() }
        let entry = Entry(
            sequence: sequence, fingerprint: fingerprint, task: task, storedAt: date,
            bytes: key.utf8.count + fingerprint.utf8.count)
        entries[key] = entry
        order.append((key, sequence))
        bytes += entry.bytes
        evictOverBounds()
        let stored = await task.value
        if var current = entries[key], current.sequence == sequence {
            if stored.status >= 500 {
                remove(key)
            } else {
                let added = stored.body.count + (stored.contentType?.utf8.count ?? 0)
                current.bytes += added
                entries[key] = current
                bytes += added
                evictOverBounds()
            }
        }
        return .response(stored, replayed: false)
    }

    /// Drops keys older than the lifetime, from the front of the queue.
    private func removeExpired(at date: Date) {
        while let next = order.first {
            guard let entry = entries[next.key], entry.sequence == next.sequence else {
                order.removeFirst()
                continue
            }
            guard date.timeIntervalSince(entry.storedAt) >= configuration.lifetime else { return }
            order.removeFirst()
            remove(next.key)
        }
    }

    /// Drops the oldest keys while either bound is exceeded, and the queue's records of keys already dropped (5xx
    /// answers) once they outnumber the keys held, so the queue stays within twice the entry bound.
    private func evictOverBounds() {
        while entries.count > configuration.maximumEntries || bytes > configuration.maximumBytes, let next = order.first {
            order.removeFirst()
            if entries[next.key]?.sequence == next.sequence { remove(next.key) }
        }
        if order.count > 2 * max(entries.count, 1024) {
            order.removeAll { entries[$0.key]?.sequence != $0.sequence }
        }
    }

    private func remove(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        bytes -= entry.bytes
    }
}
