import NIOConcurrencyHelpers

/// The statements the reads of a task issued, kept only while a test asks for them: the hook that lets the
/// `EXPLAIN` tests plan exactly the SQL and bindings the store sends, rather than a copy typed by hand. The rest of
/// what the task sent (transaction control, writes) is kept apart as text, so a test can count every round trip.
///
/// ```swift
/// let log = SQLStatementLog()
/// try await SQLStatementLog.$current.withValue(log) { _ = try await storage.read("x") { try await $0.user(id) } }
/// let reads = log.statements   // the SELECT by key, with its binding
/// ```
///
/// Outside a test nothing is recorded: ``current`` is `nil`, and a read pays one task-local lookup.
final class SQLStatementLog: Sendable {
    /// The log the reads of the current task append to, if any.
    @TaskLocal static var current: SQLStatementLog?

    private let recorded = NIOLockedValueBox<(reads: [SQLStatement], all: [String])>(([], []))

    /// Every read recorded so far, in order.
    var statements: [SQLStatement] { recorded.withLockedValue { $0.reads } }

    /// The SQL of every statement sent so far, reads and the rest, in order.
    var allStatements: [String] { recorded.withLockedValue { $0.all } }

    /// Records a read.
    func append(_ statement: SQLStatement) {
        recorded.withLockedValue {
            $0.reads.append(statement)
            $0.all.append(statement.sql)
        }
    }

    /// Records a statement that is not a read.
    func append(other sql: String) {
        recorded.withLockedValue { $0.all.append(sql) }
    }
}
