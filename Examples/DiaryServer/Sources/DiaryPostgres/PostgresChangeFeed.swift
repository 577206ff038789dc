@_spi(Storage) import DiarySDK
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Feeds ``DiaryStorage/committedChanges()`` from the `change_log` table, so writes from every process reach every
/// subscriber.
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
/// The cost of needing no lock: a transaction left open anywhere on the cluster holds back delivery until it ends
/// (set `idle_in_transaction_session_timeout`; docs/Deploying.md).
///
/// It polls, every ``PostgresDiaryStorage/Configuration/changePollInterval`` and at once after each local write
/// commits. Without subscribers it reads no rows: each poll only moves past what has ended. (LISTEN/NOTIFY would
/// save the idle polls, but needs a connection held out of the pool and a catch-up query after every reconnect
/// anyway.)
final class PostgresChangeFeed: Sendable {
    /// A place in the change log: every row at or before it, in `(xid, seq)` order, has been delivered or skipped.
    struct Position: Comparable, Sendable {
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

    /// What a snapshot of the cluster's transactions says: every transaction below `horizon` has ended, none from
    /// `xmax` on had started, and `text` (a `pg_snapshot`) tells, between the two, which had committed.
    struct Snapshot: Sendable {
        var horizon: UInt64
        var xmax: UInt64
        var text: String
    }

    private struct State {
        var position: Position
        /// Transactions that had committed while no one was subscribed (the last snapshot taken then): their rows
        /// are past, although a transaction still running then holds the position below them. Dropped once the
        /// position passes the snapshot's `xmax`.
        var past: Snapshot?
        /// Whether a catch-up is running, and whether another was asked for meanwhile.
        var isRunning = false
        var isPending = false
        /// Whether the feed was stopped: no more reads of the change log.
        var isStopped = false
    }

    static let batchSize = 500

    private let hub = ChangeHub()
    private let state: NIOLockedValueBox<State>
    private let client: PostgresClient
    private let table: String
    private let logger: Logger

    /// A feed that delivers the changes of transactions that had not committed at `snapshot`.
    init(client: PostgresClient, table: String, from snapshot: Snapshot, logger: Logger) {
        self.client = client
        self.table = table
        self.logger = logger
        var state = State(position: Position(horizon: snapshot.horizon))
        state.past = snapshot
        self.state = NIOLockedValueBox(state)
    }

    /// The cluster's transactions now.
    static func snapshot(client: PostgresClient, logger: Logger) async throws -> Snapshot {
        let rows = try await client.query(
            """
            SELECT pg_snapshot_xmin(s)::text, pg_snapshot_xmax(s)::text, s::text \
            FROM (SELECT pg_current_snapshot() AS s) now
            """, logger: logger)
        for try await (horizon, xmax, text) in rows.decode((String, String, String).self) {
            guard let horizon = UInt64(horizon), let xmax = UInt64(xmax) else { break }
            return Snapshot(horizon: horizon, xmax: xmax, text: text)
        }
        throw DiaryError(.server, "PostgreSQL gave no snapshot")
    }

    /// Whether anyone is subscribed.
    var hasSubscribers: Bool { hub.hasSubscribers }

    func subscribe() -> AsyncStream<[StoreMutation]> {
        hub.subscribe()
    }

    /// Stops reading the change log and ends every subscription.
    func stop() {
        state.withLockedValue { $0.isStopped = true }
        hub.finish()
    }

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
    /// none: it moves the position past every transaction that has ended and remembers which had committed, so a
    /// subscriber that comes later gets only what commits after (give or take a poll), even while a transaction
    /// left open holds the position back.
    private func publishBatch() async throws -> Int {
        guard !state.withLockedValue(\.isStopped) else { return 0 }
        if !hub.hasSubscribers {
            // The snapshot first, then the check: a subscriber that comes meanwhile gets what committed after it.
            let now = try await Self.snapshot(client: client, logger: logger)
            if !hub.hasSubscribers {
                state.withLockedValue { state in
                    state.position = max(state.position, Position(horizon: now.horizon))
                    state.past = now
                }
                return 0
            }
        }
        let (last, past) = state.withLockedValue { ($0.position, $0.past) }
        // One statement, one snapshot: the horizon and the rows below it.
        var statement = SQLStatement(
            """
            SELECT h.horizon::text, c.xid::text, c.seq, c.mutations::text \
            FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon) h LEFT JOIN LATERAL (\
            SELECT xid, seq, mutations FROM \(table) WHERE xid IS NOT NULL AND (xid, seq) > (
            """)
        statement.bind(String(last.transaction))
        statement.append("::xid8, ")
        statement.bind(last.sequence)
        statement.append(") AND xid < h.horizon")
        if let past {
            statement.append(" AND NOT pg_visible_in_snapshot(xid, ")
            statement.bind(past.text)
            statement.append("::pg_snapshot)")
        }
        // The batch size is written in: a bound LIMIT is planned as a tenth of the log (the store's connections plan
        // without bound values).
        statement.append(" ORDER BY xid, seq LIMIT \(Self.batchSize)) c ON true")
        var count = 0
        var horizon: UInt64?
        for try await (horizonText, xid, sequence, document) in try await client.rows(
            statement, logger: logger, decode: { try $0.decode((String, String?, Int64?, String?).self) }
        ) {
            horizon = UInt64(horizonText)
            guard let xid, let transaction = UInt64(xid), let sequence, let document else { continue }
            count += 1
            do {
                hub.publish(try PostgresRowCoding.mutations(fromChangeLog: document))
            } catch {
                // One unreadable entry must not stop the feed: it is skipped, loudly.
                logger.error("skipped an unreadable change log entry", metadata: ["seq": "\(sequence)", "xid": "\(xid)"])
            }
            state.withLockedValue { $0.position = Position(transaction: transaction, sequence: sequence) }
        }
        if count < Self.batchSize, let horizon {
            // Every row below the horizon has been read: move past them all.
            state.withLockedValue { state in
                state.position = max(state.position, Position(horizon: horizon))
                if let past = state.past, horizon >= past.xmax { state.past = nil }
            }
        }
        return count
    }
}
