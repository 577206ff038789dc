@_spi(Storage) import DiarySDK
import Foundation

/// The in-memory ``DiaryStorage``: the committed database as a value, plus fault injection and latency for tests.
///
/// A read works on the committed value it finds (a copy that shares storage), so it never waits for a write or for
/// another read. Writes run one at a time, each on its own copy, which becomes the committed value when the body
/// returns.
final class InMemoryDiaryStore: DiaryStorage {
    struct Fault: Sendable {
        var operationPrefix: String?
        var remaining: Int?
        var error: DiaryError
    }

    /// The committed database and how many times it was replaced (by writes, fixtures or a reset).
    private struct Committed {
        var database = LocalDatabase()
        var generation = 0
    }

    private let committed = Locked(Committed())
    private let writers = WriterQueue()
    private let blobs = Locked<[Attachment.ID: Data]>([:])
    private let faults = Locked<[Fault]>([])
    private let latency = Locked<TimeInterval>(0)
    private let log = Locked<[String]>([])
    private let changeLog: ChangeLog

    /// An empty store whose change log keeps the last `changeLogRetention` transactions.
    init(changeLogRetention: Int = 1_000) {
        changeLog = ChangeLog(retention: changeLogRetention)
    }

    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageReader) async throws -> Result
    ) async throws -> Result {
        try await prepare(operation)
        return try await body(LocalSnapshot(committed.current.database))
    }

    func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageTransaction) async throws -> Result
    ) async throws -> Result {
        try await prepare(operation)
        return try await writers.run {
            let base = committed.current
            let transaction = LocalTransaction(database: base.database)
            let result = try await body(transaction)
            var outcome = transaction.finish()
            outcome.applyRest()
            committed.withLock { state in
                if state.generation == base.generation {
                    state.database = outcome.database
                } else {
                    // Fixtures were added meanwhile (they do not queue behind writers): keep them.
                    for mutation in outcome.mutations { state.database.apply(mutation) }
                }
                state.generation += 1
            }
            changeLog.append(outcome.mutations)
            if !outcome.removedBlobs.isEmpty {
                blobs.withLock { stored in for id in outcome.removedBlobs { stored[id] = nil } }
            }
            return result
        }
    }

    func saveBlob(_ data: Data, for id: Attachment.ID) async throws {
        try await prepare("attachments.saveBlob")
        blobs.withLock { $0[id] = data }
    }

    func blob(for id: Attachment.ID) async throws -> Data {
        guard let data = blobs.withLock({ $0[id] }) else { throw DiaryError.notFound("attachment \(id)") }
        return data
    }

    func committedChanges(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent> {
        changeLog.subscribe(after: position)
    }

    // MARK: - Test controls

    private func prepare(_ operation: String) async throws {
        let isInternal = operation.hasPrefix("changes.")
        if !isInternal { log.withLock { $0.append(operation) } }
        let delay = latency.current
        if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
        try Task.checkCancellation()
        guard !isInternal else { return }
        let error = faults.withLock { faults -> DiaryError? in
            guard let index = faults.firstIndex(where: { fault in
                fault.operationPrefix.map { operation.hasPrefix($0) } ?? true
            }) else { return nil }
            let error = faults[index].error
            if let remaining = faults[index].remaining {
                if remaining <= 1 { faults.remove(at: index) } else { faults[index].remaining = remaining - 1 }
            }
            return error
        }
        if let error { throw error }
    }

    func addFault(_ fault: Fault) {
        faults.withLock { $0.append(fault) }
    }

    func clearFaults() {
        faults.withLock { $0.removeAll() }
    }

    func setLatency(_ seconds: TimeInterval) {
        latency.withLock { $0 = seconds }
    }

    var operations: [String] { log.current }

    func clearLog() {
        log.withLock { $0.removeAll() }
    }

    var snapshot: LocalDatabase { committed.current.database }

    func blobCount() -> Int { blobs.withLock { $0.count } }

    /// Puts rows at once, without queueing behind writers: how fixtures are added.
    func put(_ records: [StoreRecord]) {
        let mutations = committed.withLock { state -> [StoreMutation] in
            state.generation += 1
            return records.compactMap { record in
                let before = state.database.put(record)
                return before == record ? nil : StoreMutation(before: before, after: record)
            }
        }
        changeLog.append(mutations)
    }

    func saveBlobNow(_ data: Data, for id: Attachment.ID) {
        blobs.withLock { $0[id] = data }
    }

    func reset() {
        committed.withLock { state in
            state.database = LocalDatabase()
            state.generation += 1
        }
        blobs.withLock { $0.removeAll() }
        clearFaults()
        clearLog()
        setLatency(0)
    }
}
