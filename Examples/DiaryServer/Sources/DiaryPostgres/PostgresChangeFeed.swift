@_spi(Storage) import DiarySDK
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Feeds ``DiaryStorage/committedChanges(after:)`` from the `change_log` table, so writes from every process reach
/// every subscriber, and a subscriber can resume after a position on any process, before or after a restart.
///
/// A write inserts its change log row in its own transaction without any lock, so rows commit in any order of their
/// `seq`. Each row carries its writer's transaction id (`xid`, a 64-bit `xid8` that never wraps), and the feed reads
/// only rows whose transaction is older than every transaction still running: below `pg_snapshot_xmin` of the
/// reading statement's snapshot, every transaction has ended, so no row can appear there any more. It delivers in
/// `(xid, seq)` order past the last row it delivered, so a row that commits late is delivered when its transaction
/// ends, and never skipped or delivered twice. Writes that depend on each other (one read or wrote what the other
/// wrote) arrive in the order they committed, because under `SERIALIZABLE` the later one's snapshot, and so its
/// transaction id, comes after the earlier one's commit; independent writes arrive in transaction-id order.
///
/// That order is the log's order, the same in every process, and a position names a place in it:
/// `<log>.<xid>.<seq>`, where `<log>` is the schema's own random name (`change_log_state`, so a position of another
/// database or schema is told apart), and `(xid, seq)` the last row delivered, or, for the position a stream opens
/// at, `(horizon, 0)`: before every row of the transactions from the horizon on. A stream after a position reads
/// the rows after it from the table, up to where this process's live feed is, then joins the live feed, which
/// skips what the reader already has: no gap, no repeat, on whichever process it resumes.
///
/// A stream from now opens at the live feed's place. Rows of transactions that began before the oldest transaction
/// still running, and committed before the stream opened, are after that place and are delivered: "from now" is
/// "from the oldest running transaction", which is a poll interval ago unless a transaction is left open. (Skipping
/// them, as an earlier feed did, would deliver a stream that a reader resuming after its opening position could not
/// be given again.)
///
/// The cost of needing no lock: a transaction left open anywhere on the cluster holds back delivery until it ends
/// (set `idle_in_transaction_session_timeout`; docs/Deploying.md).
///
/// It polls, every ``PostgresDiaryStorage/Configuration/changePollInterval`` and at once after each local write
/// commits. Without subscribers it reads no rows: each poll only moves past what has ended. (LISTEN/NOTIFY would
/// save the idle polls, but needs a connection held out of the pool and a catch-up query after every reconnect
/// anyway.)
///
/// Each stream holds at most ``PostgresDiaryStorage/Configuration/changeStreamBacklog`` transactions its reader has
/// not taken; a stream that would hold more ends instead (nothing is dropped), and its reader resumes after the last
/// position it received, from the table. The maintenance job trims the table (``PostgresDiaryStorage``'s
/// `trimChangeLog`); how far is recorded in `change_log_state`, and a stream after a position before that opens with
/// ``ChangeLogEvent/trimmed(_:)``.
final class PostgresChangeFeed: Sendable {
    /// A place in the change log: every row at or before it, in `(xid, seq)` order, has been delivered or skipped.
    struct Position: Comparable, Hashable, Sendable {
        var transaction: UInt64
        var sequence: Int64

        static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.transaction, lhs.sequence) < (rhs.transaction, rhs.sequence)
        }

        /// Before every row of the transactions from `horizon` on.
        init(horizon: UInt64) {
            transaction = horizon
            sequence = 0
        }

        init(transaction: UInt64, sequence: Int64) {
            self.transaction = transaction
            self.sequence = sequence
        }
    }

    /// What a snapshot of the cluster's transactions says: every transaction below `horizon` has ended.
    struct Snapshot: Sendable {
        var horizon: UInt64
    }

    private struct Subscriber {
        let continuation: AsyncStream<ChangeLogEvent>.Continuation
        /// Rows at or before it are the reader's already (a resumed stream's replay went as far): skipped.
        var after: Position
    }

    private struct State {
        var position: Position
        var subscribers: [UUID: Subscriber] = [:]
        /// Whether a catch-up is running, and whether another was asked for meanwhile.
        var isRunning = false
        var isPending = false
        /// Whether the feed was stopped: no more reads of the change log.
        var isStopped = false
    }

    static let batchSize = 500

    /// The schema's change log name, the first part of every position.
    let logName: String
    private let state: NIOLockedValueBox<State>
    private let client: PostgresClient
    private let table: String
    private let stateTable: String
    private let backlog: Int
    private let retryInterval: Duration
    private let logger: Logger

    /// A feed that delivers the changes of transactions that had not ended at `snapshot`.
    /// - Parameters:
    ///   - logName: The schema's change log name (`change_log_state.log`).
    ///   - backlog: The most transactions a stream holds for its reader.
    ///   - retryInterval: How long a resuming stream waits before reading the table again after a failed read.
    init(
        client: PostgresClient, table: String, stateTable: String, logName: String, from snapshot: Snapshot,
        backlog: Int, retryInterval: Duration, logger: Logger
    ) {
        self.client = client
        self.table = table
        self.stateTable = stateTable
        self.logName = logName
        self.backlog = max(1, backlog)
        self.retryInterval = retryInterval
        self.logger = logger
        state = NIOLockedValueBox(State(position: Position(horizon: snapshot.horizon)))
    }

    /// The cluster's transactions now.
    static func snapshot(client: PostgresClient, logger: Logger) async throws -> Snapshot {
        let rows = try await client.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text", logger: logger)
        for try await horizon in rows.decode(String.self) {
            guard let horizon = UInt64(horizon) else { break }
            return Snapshot(horizon: horizon)
        }
        throw DiaryError(.server, "PostgreSQL gave no snapshot")
    }

    // MARK: - Positions

    /// A position of this log as the SDK carries it.
    func changePosition(_ position: Position) -> ChangePosition {
        ChangePosition(validated: "\(logName).\(position.transaction).\(position.sequence)")
    }

    /// The place a position of this log names, or `nil` when it is malformed or another log's.
    func position(of position: ChangePosition) -> Position? {
        let parts = position.rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == logName, let transaction = UInt64(parts[1]), let sequence = Int64(parts[2]),
            sequence >= 0, String(transaction) == parts[1], String(sequence) == parts[2]
        else { return nil }
        return Position(transaction: transaction, sequence: sequence)
    }

    // MARK: - Subscribing

    /// Where the live feed is: every row at or before it has been handed to the streams that follow it.
    var position: Position { state.withLockedValue(\.position) }

    /// Whether any stream follows the live feed.
    var hasSubscribers: Bool { state.withLockedValue { !$0.subscribers.isEmpty } }

    /// A stream of the log after `position` (from now when `nil`); see ``DiaryStorage/committedChanges(after:)``.
    func subscribe(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<ChangeLogEvent>.makeStream(bufferingPolicy: .bufferingOldest(backlog))
        let replay = NIOLockedValueBox<Task<Void, Never>?>(nil)
        continuation.onTermination = { [weak self] _ in
            replay.withLockedValue { $0?.cancel() }
            _ = self?.state.withLockedValue { $0.subscribers.removeValue(forKey: id) }
        }
        guard let position else {
            join(id, continuation) { .opened($0) }
            return stream
        }
        guard let start = self.position(of: position) else {
            // Not a position of this log: the reader reloads, then follows from now.
            join(id, continuation) { .trimmed($0) }
            return stream
        }
        let task = Task { await self.resume(id, continuation, after: start, as: position) }
        replay.withLockedValue { $0 = task }
        return stream
    }

    /// Adds a stream to the live feed at its current place, its first event `opening` that place.
    private func join(
        _ id: UUID, _ continuation: AsyncStream<ChangeLogEvent>.Continuation,
        _ opening: (ChangePosition) -> ChangeLogEvent
    ) {
        let joined = state.withLockedValue { state -> Bool in
            guard !state.isStopped else { return false }
            continuation.yield(opening(changePosition(state.position)))
            state.subscribers[id] = Subscriber(continuation: continuation, after: state.position)
            return true
        }
        if !joined { continuation.finish() }
    }

    /// Replays the rows after `start` from the table up to the live feed's place, then joins the live feed.
    private func resume(
        _ id: UUID, _ continuation: AsyncStream<ChangeLogEvent>.Continuation, after start: Position,
        as position: ChangePosition
    ) async {
        var last = start
        var isOpen = false
        while !Task.isCancelled {
            guard let target = state.withLockedValue({ $0.isStopped ? nil : $0.position }) else { break }
            let batch: Replay
            do {
                batch = try await replay(after: last, through: target)
            } catch {
                logger.warning(
                    "could not read the change log for a resuming stream",
                    metadata: ["error": "\(DiaryError.postgres(error, "changes.resume").message)"])
                do { try await Task.sleep(for: retryInterval) } catch { break }
                continue
            }
            if !isOpen {
                // A position past every horizon was never given by this log; one before the trim mark names rows
                // that may be gone.
                if start.transaction > batch.horizon || start < batch.trimmed {
                    join(id, continuation) { .trimmed($0) }
                    return
                }
                continuation.yield(.opened(position))
                isOpen = true
            } else if last < batch.trimmed {
                // Trimmed past what this stream still owes: it ends, and its reader resumes (and hears `trimmed`).
                break
            }
            for (at, mutations) in batch.rows {
                if case .dropped = continuation.yield(.committed(changePosition(at), mutations)) {
                    // Its reader fell a backlog behind: the stream ends, and the reader resumes after what it has.
                    continuation.finish()
                    return
                }
                last = at
            }
            guard batch.rows.count < Self.batchSize else { continue }
            // Every row up to `target` is delivered: join the live feed if it is no further, else read on.
            last = max(last, target)
            let joined = state.withLockedValue { state -> Bool? in
                if state.isStopped { return nil }
                guard last >= state.position else { return false }
                state.subscribers[id] = Subscriber(continuation: continuation, after: last)
                return true
            }
            switch joined {
            case true?: return
            case false?: continue
            case nil: continuation.finish(); return
            }
        }
        continuation.finish()
    }

    private struct Replay {
        var horizon: UInt64
        var trimmed: Position
        var rows: [(Position, [StoreMutation])]
    }

    /// Up to a batch of rows after `last` and at or before `target`, with the horizon and the trim mark, all read in
    /// one statement (one snapshot: a trim deletes its rows and moves the mark in one transaction).
    private func replay(after last: Position, through target: Position) async throws -> Replay {
        var statement = SQLStatement(
            """
            SELECT pg_snapshot_xmin(pg_current_snapshot())::text, m.trimmed_xid::text, m.trimmed_seq, \
            c.xid::text, c.seq, c.mutations::text FROM \(stateTable) m LEFT JOIN LATERAL (\
            SELECT xid, seq, mutations FROM \(table) WHERE xid IS NOT NULL AND (xid, seq) > (
            """)
        statement.bind(String(last.transaction))
        statement.append("::xid8, ")
        statement.bind(last.sequence)
        statement.append(") AND (xid, seq) <= (")
        statement.bind(String(target.transaction))
        statement.append("::xid8, ")
        statement.bind(target.sequence)
        statement.append(") ORDER BY xid, seq LIMIT \(Self.batchSize)) c ON true")
        var replay: Replay?
        for try await (horizon, trimmedXID, trimmedSequence, xid, sequence, document) in try await client.rows(
            statement, logger: logger,
            decode: { try $0.decode((String, String, Int64, String?, Int64?, String?).self) }
        ) {
            if replay == nil {
                guard let horizon = UInt64(horizon), let trimmed = UInt64(trimmedXID) else {
                    throw DiaryError(.server, "PostgreSQL gave a horizon or trim mark that is not a transaction id")
                }
                replay = Replay(
                    horizon: horizon, trimmed: Position(transaction: trimmed, sequence: trimmedSequence), rows: [])
            }
            guard let xid, let transaction = UInt64(xid), let sequence, let document else { continue }
            let at = Position(transaction: transaction, sequence: sequence)
            replay?.rows.append((at, decodeMutations(document, at: at)))
        }
        guard let replay else { throw DiaryError(.server, "the change log has no state row (change_log_state)") }
        return replay
    }

    /// A row's mutations; an unreadable entry is delivered as no mutation (its position still moves the reader
    /// on), loudly: one bad row must not stop every stream.
    private func decodeMutations(_ document: String, at position: Position) -> [StoreMutation] {
        do {
            return try PostgresRowCoding.mutations(fromChangeLog: document)
        } catch {
            logger.error(
                "skipped an unreadable change log entry",
                metadata: ["seq": "\(position.sequence)", "xid": "\(position.transaction)"])
            return []
        }
    }

    /// Stops reading the change log and ends every stream; later streams end at once.
    func stop() {
        let all = state.withLockedValue { state -> [Subscriber] in
            state.isStopped = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
    }

    // MARK: - Polling

    /// Polls until the task is cancelled.
    func poll(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await catchUp()
        }
    }

    /// Publishes every change logged since the last one published. One catch-up runs at a time; a call made while
    /// one runs makes it go round once more.
    func catchUp() async {
        let claimed = state.withLockedValue { state -> Bool in
            if state.isStopped { return false }
            if state.isRunning {
                state.isPending = true
                return false
            }
            state.isRunning = true
            state.isPending = false
            return true
        }
        guard claimed else { return }
        while true {
            do {
                while try await publishBatch() == Self.batchSize {}
            } catch {
                logger.warning("could not read the change log", metadata: ["error": "\(DiaryError.postgres(error, "changes.poll").message)"])
            }
            let again = state.withLockedValue { state -> Bool in
                if state.isPending, !state.isStopped {
                    state.isPending = false
                    return true
                }
                state.isRunning = false
                return false
            }
            guard again else { return }
        }
    }

    /// Publishes the next batch of logged changes; returns how many rows it read. Without subscribers it reads
    /// none: it moves the position past every transaction that has ended.
    private func publishBatch() async throws -> Int {
        guard !state.withLockedValue(\.isStopped) else { return 0 }
        if !hasSubscribers {
            let now = try await Self.snapshot(client: client, logger: logger)
            state.withLockedValue { state in
                // A subscriber that came meanwhile opened at the position before this move: it gets the rows between
                // at the next catch-up only if the position stays, so move only while there is none.
                if state.subscribers.isEmpty { state.position = max(state.position, Position(horizon: now.horizon)) }
            }
            return 0
        }
        let last = state.withLockedValue(\.position)
        // One statement, one snapshot: the horizon, the trim mark and the rows below the horizon.
        var statement = SQLStatement(
            """
            SELECT h.horizon::text, m.trimmed_xid::text, m.trimmed_seq, c.xid::text, c.seq, c.mutations::text \
            FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon) h CROSS JOIN \(stateTable) m \
            LEFT JOIN LATERAL (SELECT xid, seq, mutations FROM \(table) WHERE xid IS NOT NULL AND (xid, seq) > (
            """)
        statement.bind(String(last.transaction))
        statement.append("::xid8, ")
        statement.bind(last.sequence)
        statement.append(") AND xid < h.horizon")
        // The batch size is written in: a bound LIMIT is planned as a tenth of the log (the store's connections plan
        // without bound values).
        statement.append(" ORDER BY xid, seq LIMIT \(Self.batchSize)) c ON true")
        var count = 0
        var horizon: UInt64?
        var trimmed: Position?
        for try await (horizonText, trimmedXID, trimmedSequence, xid, sequence, document) in try await client.rows(
            statement, logger: logger,
            decode: { try $0.decode((String, String, Int64, String?, Int64?, String?).self) }
        ) {
            if horizon == nil {
                horizon = UInt64(horizonText)
                if let mark = UInt64(trimmedXID) { trimmed = Position(transaction: mark, sequence: trimmedSequence) }
                if let trimmed, trimmed > last {
                    // Rows this feed had not delivered were trimmed: its streams cannot have them. They end, and
                    // their readers resume after what they have, which says `trimmed`.
                    endStreams(movingTo: trimmed, from: last)
                    return 0
                }
            }
            guard let xid, let transaction = UInt64(xid), let sequence, let document else { continue }
            count += 1
            let at = Position(transaction: transaction, sequence: sequence)
            publish(decodeMutations(document, at: at), at: at)
        }
        if count < Self.batchSize, let horizon {
            // Every row below the horizon has been read: move past them all.
            state.withLockedValue { state in
                state.position = max(state.position, Position(horizon: horizon))
            }
        }
        return count
    }

    /// Hands one row to every stream and moves the position past it, in one step: a stream that joins sees either
    /// the row or the position before it.
    private func publish(_ mutations: [StoreMutation], at position: Position) {
        let ended = state.withLockedValue { state -> [AsyncStream<ChangeLogEvent>.Continuation] in
            guard !state.isStopped, position > state.position else { return [] }
            state.position = position
            let event = ChangeLogEvent.committed(changePosition(position), mutations)
            var ended: [AsyncStream<ChangeLogEvent>.Continuation] = []
            for (id, subscriber) in state.subscribers where position > subscriber.after {
                if case .dropped = subscriber.continuation.yield(event) {
                    // Its reader fell a backlog behind: the stream ends rather than skip a row, and the reader
                    // resumes after the last position it took, from the table.
                    state.subscribers[id] = nil
                    ended.append(subscriber.continuation)
                }
            }
            return ended
        }
        for continuation in ended { continuation.finish() }
    }

    /// Ends every stream and moves the position to `trimmed` (rows up to it are gone).
    private func endStreams(movingTo trimmed: Position, from last: Position) {
        let all = state.withLockedValue { state -> [Subscriber] in
            guard state.position == last else { return [] }
            state.position = max(state.position, trimmed)
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        if !all.isEmpty {
            logger.warning("the change log was trimmed past rows this process had not delivered; its streams resume")
        }
        for subscriber in all { subscriber.continuation.finish() }
    }
}
