import Metrics
import NIOConcurrencyHelpers
import PostgresNIO

/// What the store reports through swift-metrics (PostgresClient reports nothing of its own): its transactions'
/// durations, the operations waiting for a pool connection and those holding one, and the writes run again after a
/// serialization failure or a deadlock.
///
/// | Label | Kind | Dimensions |
/// |---|---|---|
/// | `diary_db_transaction_duration_seconds` | timer (histogram) | `kind`: `read`, `write` |
/// | `diary_db_connections_waiting` | meter (gauge) | |
/// | `diary_db_connections_in_use` | meter (gauge) | |
/// | `diary_db_write_retries_total` | counter | |
///
/// Every store of a process reports into the same series.
struct PostgresStorageMetrics: Sendable {
    enum Kind: String, Sendable {
        case read, write
    }

    private let waiting = Meter(label: "diary_db_connections_waiting")
    private let inUse = Meter(label: "diary_db_connections_in_use")
    private let retries = Counter(label: "diary_db_write_retries_total")

    /// Runs `body` on a pool connection, counting the wait for it and the time it is held.
    func withConnection<Result: Sendable>(
        _ client: PostgresClient, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connected = NIOLockedValueBox(false)
        waiting.increment()
        defer { if !connected.withLockedValue({ $0 }) { waiting.decrement() } }
        return try await client.withConnection { connection in
            connected.withLockedValue { $0 = true }
            waiting.decrement()
            inUse.increment()
            defer { inUse.decrement() }
            return try await body(connection)
        }
    }

    /// Records a transaction of `kind` that started at `start`.
    func record(_ kind: Kind, since start: ContinuousClock.Instant) {
        Metrics.Timer(
            label: "diary_db_transaction_duration_seconds", dimensions: [("kind", kind.rawValue)], preferredDisplayUnit: .seconds
        ).record(duration: ContinuousClock.now - start)
    }

    /// Counts a write run again.
    func retried() {
        retries.increment()
    }
}
