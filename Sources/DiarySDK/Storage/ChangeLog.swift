import Foundation

/// What ``DiaryStorage/committedChanges(after:)`` delivers.
@_spi(Storage)
public enum ChangeLogEvent: Sendable {
    /// The first event when the store can start where it was asked: every transaction committed after this position
    /// follows. For a stream from now, the head of the log; for one after a position, that position.
    case opened(ChangePosition)
    /// A committed transaction's mutations and its position.
    case committed(ChangePosition, [StoreMutation])
    /// The first event when the store cannot start after the position it was asked for (its log no longer reaches
    /// back so far, or the position is not one it gave): every transaction committed after this position (the head
    /// of the log when the stream opened) follows.
    case trimmed(ChangePosition)
}

/// A change log kept in memory: the last ``retention`` committed transactions with their positions, and the streams
/// that follow it. What the in-memory and file stores use for ``DiaryStorage/committedChanges(after:)``; a custom
/// store that commits in one process can use it too.
///
/// A position is `<log>.<sequence>`: `<log>` names this log (random, so a position saved from another log, or from
/// this store before a relaunch, is told apart and answered with ``ChangeLogEvent/trimmed(_:)``), `<sequence>`
/// counts the transactions appended since it was created.
///
/// Appending and subscribing take one lock, so a subscriber that starts after a position receives the retained
/// transactions after it and then every later one, with no gap and no repeat. Each stream buffers without bound: its
/// reader (the engine's change stream) takes each transaction as it comes.
@_spi(Storage)
public final class ChangeLog: Sendable {
    private struct State {
        var head: UInt64 = 0
        /// The retained transactions, oldest first: `entries[start...]` hold sequences `head - count + 1 ... head`.
        var entries: [(sequence: UInt64, mutations: [StoreMutation])] = []
        var start = 0
        var subscribers: [UUID: AsyncStream<ChangeLogEvent>.Continuation] = [:]
        var isFinished = false

        var retainedCount: Int { entries.count - start }
    }

    /// How many committed transactions the log keeps for streams that resume.
    public let retention: Int
    private let name: String
    private let state = Locked(State())

    /// An empty log.
    /// - Parameter retention: How many committed transactions to keep for streams that resume (at least 1).
    public init(retention: Int) {
        self.retention = max(1, retention)
        name = "m" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// The position of the last transaction appended (of the log's start when none was).
    public var head: ChangePosition {
        position(state.withLock { $0.head })
    }

    /// Whether any stream follows the log.
    public var hasSubscribers: Bool {
        state.withLock { !$0.subscribers.isEmpty }
    }

    /// Appends a committed transaction and hands it to every stream. Call it in commit order.
    /// - Parameter mutations: The transaction's mutations; an empty list is not a change and is not appended.
    public func append(_ mutations: [StoreMutation]) {
        guard !mutations.isEmpty else { return }
        state.withLock { state in
            guard !state.isFinished else { return }
            state.head += 1
            state.entries.append((state.head, mutations))
            if state.retainedCount > retention { state.start += 1 }
            if state.start > 1024, state.start * 2 > state.entries.count {
                state.entries.removeFirst(state.start)
                state.start = 0
            }
            let event = ChangeLogEvent.committed(position(state.head), mutations)
            for continuation in state.subscribers.values { continuation.yield(event) }
        }
    }

    /// A stream of the log after `position` (from now when `nil`); see ``DiaryStorage/committedChanges(after:)``.
    public func subscribe(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<ChangeLogEvent>.makeStream(bufferingPolicy: .unbounded)
        state.withLock { state in
            guard !state.isFinished else {
                continuation.finish()
                return
            }
            let head = state.head
            if let position {
                let oldest = head - UInt64(state.retainedCount)  // the position before the oldest retained
                if let sequence = sequence(of: position), sequence >= oldest, sequence <= head {
                    continuation.yield(.opened(position))
                    for entry in state.entries[state.start...] where entry.sequence > sequence {
                        continuation.yield(.committed(self.position(entry.sequence), entry.mutations))
                    }
                } else {
                    continuation.yield(.trimmed(self.position(head)))
                }
            } else {
                continuation.yield(.opened(self.position(head)))
            }
            state.subscribers[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every stream; later subscriptions end at once.
    public func finish() {
        let all = state.withLock { state -> [AsyncStream<ChangeLogEvent>.Continuation] in
            state.isFinished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }

    private func position(_ sequence: UInt64) -> ChangePosition {
        ChangePosition(validated: "\(name).\(sequence)")
    }

    /// The sequence a position of this log names, or `nil` when it is another log's.
    private func sequence(of position: ChangePosition) -> UInt64? {
        let text = position.rawValue
        guard let dot = text.lastIndex(of: "."), text[..<dot] == name else { return nil }
        return UInt64(text[text.index(after: dot)...])
    }
}
