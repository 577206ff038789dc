@_spi(Storage) import DiarySDK
import Foundation

/// The local replica's storage with the outbox written into each local write's own transaction.
///
/// The offline repositories run every local write through a ``DiaryEngine`` over this storage, inside
/// ``queue(_:_:)``: the write's transaction gets one more row, its ``OutboxRecord``, after the engine's body has
/// run and before it commits. The local change and the record of what to send are durable together, or neither is:
/// a process killed at any moment never holds a local change the outbox forgot, nor an outbox entry for a change
/// that was rolled back.
final class OutboxStorage: DiaryStorage {
    /// The write the current task's repository call stands for, set by ``queue(_:_:)``.
    @TaskLocal static var pending: PendingWrite?

    let base: any DiaryStorage
    /// The next sequence number of each user's outbox, read from the store on the user's first write.
    private let nextSequence = Locked<[User.ID: Int]>([:])

    init(base: any DiaryStorage) {
        self.base = base
    }

    /// Runs a local write with `write` recorded in the outbox in its transaction.
    static func queue<Result: Sendable>(
        _ write: PendingWrite, _ body: () async throws -> Result
    ) async throws -> Result {
        try await $pending.withValue(write, operation: body)
    }

    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageReader) async throws -> Result
    ) async throws -> Result {
        try await base.read(operation, body)
    }

    func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageTransaction) async throws -> Result
    ) async throws -> Result {
        guard let pending = Self.pending else { return try await base.write(operation, body) }
        return try await base.write(operation) { transaction in
            let result = try await body(transaction)
            let made: (subject: UUID, payload: String)
            do {
                guard let payload = try pending.payload(result) else {
                    // The write's result is not what its operation makes (no entry to name): nothing to send.
                    return result
                }
                made = payload
            } catch {
                throw DiaryError(
                    .server, "the outbox entry for \(pending.operation.rawValue) could not be encoded", underlying: error)
            }
            try await self.put(pending, made, in: transaction)
            return result
        }
    }

    /// Records a write that changes nothing on the device (a comment or a like, which the server decides) in the
    /// outbox, in a transaction of its own.
    func enqueue(_ pending: PendingWrite, _ made: (subject: UUID, payload: String)) async throws {
        try await base.write("offline.enqueue") { transaction in
            try await self.put(pending, made, in: transaction)
        }
    }

    private func put(
        _ pending: PendingWrite, _ made: (subject: UUID, payload: String), in transaction: any StorageTransaction
    ) async throws {
        let sequence = try await takeSequence(for: pending.userID, in: transaction)
        try await transaction.put(
            .outbox(
                OutboxRecord(
                    id: pending.id, sequence: sequence, userID: pending.userID, subject: made.subject,
                    operation: pending.operation.rawValue, payload: made.payload, createdAt: pending.createdAt)))
    }

    func saveBlob(_ data: Data, for id: Attachment.ID) async throws {
        try await base.saveBlob(data, for: id)
    }

    func blob(for id: Attachment.ID) async throws -> Data {
        try await base.blob(for: id)
    }

    func committedChanges(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent> {
        base.committedChanges(after: position)
    }

    /// The sequence for a new outbox entry of `userID`. Called inside a write, so writes (serialised by the store)
    /// take their numbers one at a time; a number taken by a transaction that then fails is skipped, which leaves
    /// the order intact.
    private func takeSequence(for userID: User.ID, in transaction: any StorageTransaction) async throws -> Int {
        if let next = nextSequence.withLock({ $0[userID] }) {
            nextSequence.withLock { $0[userID] = next + 1 }
            return next
        }
        let queued = try await transaction.rows(StorageSchema.outboxByUser, equalTo: userID)
        let next = (queued.map(\.sequence).max() ?? 0) + 1
        nextSequence.withLock { $0[userID] = next + 1 }
        return next
    }
}
