import DiarySDK
import Foundation

/// The in-memory ``DiaryStore``: one database behind a lock, plus fault injection and latency for tests.
final class InMemoryDiaryStore: DiaryStore {
    struct Fault: Sendable {
        var operationPrefix: String?
        var remaining: Int?
        var error: DiaryError
    }

    private let database = Locked(DiaryDatabase())
    private let blobs = Locked<[Attachment.ID: Data]>([:])
    private let faults = Locked<[Fault]>([])
    private let latency = Locked<TimeInterval>(0)
    private let log = Locked<[String]>([])
    private let hub = ChangeHub()

    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (DiaryDatabase) throws -> Result
    ) async throws -> Result {
        try await prepare(operation)
        return try database.withLock { try body($0) }
    }

    func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (inout DiaryTransaction) throws -> Result
    ) async throws -> Result {
        try await prepare(operation)
        let (result, removedBlobs) = try database.withLock { db in
            let outcome = try DiaryTransaction.run(on: &db, body, commit: { _ in })
            hub.publish(outcome.mutations)
            return (outcome.result, outcome.removedBlobs)
        }
        if !removedBlobs.isEmpty {
            blobs.withLock { stored in for id in removedBlobs { stored[id] = nil } }
        }
        return result
    }

    func saveBlob(_ data: Data, for id: Attachment.ID) async throws {
        try await prepare("attachments.saveBlob")
        blobs.withLock { $0[id] = data }
    }

    func blob(for id: Attachment.ID) async throws -> Data {
        guard let data = blobs.withLock({ $0[id] }) else { throw DiaryError.notFound("attachment \(id)") }
        return data
    }

    func committedChanges() -> AsyncStream<[StoreMutation]> {
        hub.subscribe()
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

    var snapshot: DiaryDatabase { database.withLock { $0 } }

    func blobCount() -> Int { blobs.withLock { $0.count } }

    func mutate(_ body: (inout DiaryTransaction) throws -> Void) rethrows {
        try database.withLock { db in
            let outcome = try DiaryTransaction.run(on: &db, body, commit: { _ in })
            hub.publish(outcome.mutations)
        }
    }

    func saveBlobNow(_ data: Data, for id: Attachment.ID) {
        blobs.withLock { $0[id] = data }
    }

    func reset() {
        database.withLock { $0 = DiaryDatabase() }
        blobs.withLock { $0.removeAll() }
        clearFaults()
        clearLog()
        setLatency(0)
    }
}
