@_spi(Storage) import DiarySDK
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Feeds ``DiaryStorage/committedChanges()`` from the `change_log` table, so writes from every process reach every
/// subscriber, in commit order.
///
/// It polls: `SELECT … WHERE seq > $last ORDER BY seq`, every ``PostgresDiaryStorage/Configuration/changePollInterval``
/// and at once after each local write commits. Sequence order is commit order because a write takes a
/// transaction-level advisory lock just before it inserts its change log row (`append_change`, migration
/// `0003_append_change`), and holds it until it commits: a later `seq` cannot commit first, so reading past the last
/// seen `seq` never skips a row. (LISTEN/NOTIFY would save
/// the idle polls, but needs a connection held out of the pool and a catch-up query after every reconnect anyway.)
final class PostgresChangeFeed: Sendable {
    private struct State {
        var lastSequence: Int64
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

    /// A feed that delivers the changes committed after `sequence`.
    init(client: PostgresClient, table: String, after sequence: Int64, logger: Logger) {
        self.client = client
        self.table = table
        self.logger = logger
        state = NIOLockedValueBox(State(lastSequence: sequence))
    }

    /// The last sequence number committed now (0 for an empty log).
    static func lastSequence(in table: String, client: PostgresClient, logger: Logger) async throws -> Int64 {
        let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT coalesce(max(seq), 0) FROM \(table)"), logger: logger)
        for try await sequence in rows.decode(Int64.self) { return sequence }
        return 0
    }

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

    /// Publishes the next batch of logged changes; returns how many rows it read.
    private func publishBatch() async throws -> Int {
        let last = state.withLockedValue { $0.lastSequence }
        var statement = SQLStatement("SELECT seq, mutations::text FROM \(table) WHERE seq > ")
        statement.bind(last)
        statement.append(" ORDER BY seq LIMIT ")
        statement.bind(Int64(Self.batchSize))
        var count = 0
        guard !state.withLockedValue(\.isStopped) else { return 0 }
        for try await (sequence, document) in try await client.rows(statement, logger: logger, decode: { try $0.decode((Int64, String).self) }) {
            count += 1
            do {
                hub.publish(try PostgresRowCoding.mutations(fromChangeLog: document))
            } catch {
                // One unreadable entry must not stop the feed: it is skipped, loudly.
                logger.error("skipped an unreadable change log entry", metadata: ["seq": "\(sequence)"])
            }
            state.withLockedValue { $0.lastSequence = sequence }
        }
        return count
    }
}
