import Foundation

/// What the engine needs from a local backend: serialised transactions over a ``DiaryDatabase``, attachment
/// bytes, and a stream of committed changes.
///
/// `InMemoryDiaryStore` keeps the database in memory; `FileDiaryStore` also journals each transaction's mutations
/// durably before it returns. Both run every read and write of a store one at a time.
package protocol DiaryStore: Sendable {
    /// Runs a read-only body against the current database.
    /// - Parameters:
    ///   - operation: The repository operation, for fault injection and diagnostics.
    ///   - body: The read.
    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (DiaryDatabase) throws -> Result
    ) async throws -> Result

    /// Runs a transaction: its mutations are all applied and durable when this returns, or none are.
    /// - Parameters:
    ///   - operation: The repository operation, for fault injection and diagnostics.
    ///   - body: The transaction.
    func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (inout DiaryTransaction) throws -> Result
    ) async throws -> Result

    /// Stores an attachment's bytes before its row is written.
    func saveBlob(_ data: Data, for id: Attachment.ID) async throws

    /// An attachment's bytes.
    func blob(for id: Attachment.ID) async throws -> Data

    /// Every committed transaction's mutations, from now on.
    func committedChanges() -> AsyncStream<[StoreMutation]>
}

/// Fans committed changes out to every subscriber; used by the stores.
package final class ChangeHub: Sendable {
    private let continuations = Locked<[UUID: AsyncStream<[StoreMutation]>.Continuation]>([:])

    package init() {}

    /// A new subscription.
    package func subscribe() -> AsyncStream<[StoreMutation]> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<[StoreMutation]>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: id) }
        }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    /// Sends a committed transaction to every subscriber.
    package func publish(_ mutations: [StoreMutation]) {
        guard !mutations.isEmpty else { return }
        for continuation in continuations.current.values { continuation.yield(mutations) }
    }

    /// Ends every subscription.
    package func finish() {
        let all = continuations.withLock { value -> [AsyncStream<[StoreMutation]>.Continuation] in
            defer { value.removeAll() }
            return Array(value.values)
        }
        for continuation in all { continuation.finish() }
    }
}
