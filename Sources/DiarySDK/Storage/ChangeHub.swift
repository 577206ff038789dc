import Foundation

/// Fans committed changes out to every subscriber: what a ``DiaryStorage`` can use for
/// ``DiaryStorage/committedChanges()``. Each subscriber buffers the newest 1,024 batches.
@_spi(Storage)
public final class ChangeHub: Sendable {
    private let continuations = Locked<[UUID: AsyncStream<[StoreMutation]>.Continuation]>([:])

    /// A hub without subscribers.
    public init() {}

    /// A new subscription.
    public func subscribe() -> AsyncStream<[StoreMutation]> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<[StoreMutation]>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: id) }
        }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    /// Whether anyone is subscribed: a store with no subscribers can skip reading what it would publish.
    public var hasSubscribers: Bool {
        !continuations.current.isEmpty
    }

    /// Sends a committed transaction to every subscriber.
    public func publish(_ mutations: [StoreMutation]) {
        guard !mutations.isEmpty else { return }
        for continuation in continuations.current.values { continuation.yield(mutations) }
    }

    /// Ends every subscription.
    public func finish() {
        let all = continuations.withLock { value -> [AsyncStream<[StoreMutation]>.Continuation] in
            defer { value.removeAll() }
            return Array(value.values)
        }
        for continuation in all { continuation.finish() }
    }
}
