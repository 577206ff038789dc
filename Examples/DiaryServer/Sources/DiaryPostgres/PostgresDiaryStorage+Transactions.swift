@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO

/// The transaction handling of reads and writes: one attempt of a write, commit, roll-back and the back-off
/// between attempts.
extension PostgresDiaryStorage {
    /// How long to wait before running a write again: "full jitter", a random time up to 2 ms doubled per failed
    /// attempt, at most a second, so writers that keep colliding spread out instead of colliding again.
    static func backOff(afterAttempt attempt: Int) -> Duration {
        let ceiling = min(1_000_000, 2_000 << min(attempt, 20))
        return .microseconds(Int.random(in: 100...ceiling))
    }

    /// A rule of the body failed: its error, to be thrown without running the body again.
    struct RuleFailure: Error {
        var error: any Error
    }

    /// One run of a write's body in a `SERIALIZABLE` transaction; returns its result and whether it changed rows.
    func attemptWrite<Result: Sendable>(
        _ body: @Sendable (any StorageTransaction) async throws -> Result, on connection: PostgresConnection
    ) async throws -> (Result, Bool) {
        try await connection.run(.beginSerializable, logger: logger)
        do {
            // The transaction takes the savepoint `body` before its first change (a body that throws before
            // changing anything has nothing to undo).
            let transaction = PostgresTransaction(reader: PostgresReader(connection: connection, layout: layout, logger: logger))
            let result: Result
            do {
                result = try await body(transaction)
            } catch where !DiaryError.isPostgresFailure(error) && !(error is CancellationError) {
                // Undo the body's changes, but commit its reads, so that PostgreSQL checks the state that made it
                // throw was a serialisable one; if not, the commit fails with 40001 and the body runs again.
                if transaction.hasSavepoint { try await connection.run(.rollbackToSavepoint, logger: logger) }
                do {
                    // A task whose document check fails hears that, not which rule the body broke.
                    try await settleDocumentCheck(on: connection)
                } catch where !DiaryError.isPostgresFailure(error) {
                    await rollBack(connection)
                    throw RuleFailure(error: error)
                }
                try await commit(connection)
                throw RuleFailure(error: error)
            }
            do {
                // Nothing is committed for a task whose document check fails.
                try await settleDocumentCheck(on: connection)
            } catch where !DiaryError.isPostgresFailure(error) {
                await rollBack(connection)
                throw RuleFailure(error: error)
            }
            // The body's last insert, if it left one, goes with the change log row in one statement.
            let changed = try await transaction.finish()
            try await commit(connection)
            return (result, changed)
        } catch let failure as RuleFailure {
            throw failure
        } catch let failure as CommitFailure {
            // A failed COMMIT has ended the transaction already: nothing to roll back.
            throw failure.error
        } catch {
            await rollBack(connection)
            throw error
        }
    }

    /// Settles the current task's pending ``PostgresDocumentCheck`` inside the connection's transaction, if it has
    /// one a batched read did not already carry.
    /// - Throws: The check's verdict, or the database's error.
    func settleDocumentCheck(on connection: PostgresConnection) async throws {
        guard let check = PostgresDocumentCheck.pending else { return }
        try await check.settle(on: connection, logger: logger)
    }

    /// A `COMMIT` failed (the transaction is over): its error.
    struct CommitFailure: Error {
        var error: any Error
    }

    /// Commits the connection's transaction.
    /// - Throws: ``CommitFailure`` when PostgreSQL refuses (a serialisation failure found at commit).
    func commit(_ connection: PostgresConnection) async throws {
        do {
            try await connection.run(.commit, logger: logger)
        } catch {
            throw CommitFailure(error: error)
        }
    }

    /// Rolls back the connection's transaction; a connection that cannot is closed, so the pool never lends out a
    /// connection inside a transaction.
    func rollBack(_ connection: PostgresConnection) async {
        do {
            try await connection.run(.rollback, logger: logger)
        } catch {
            try? await connection.close()
        }
    }
}
