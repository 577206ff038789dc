import NIOConcurrencyHelpers

/// The statements the reads of a task issued, kept only while a test asks for them: the hook that lets the
/// `EXPLAIN` tests plan exactly the SQL and bindings the store sends, rather than a copy typed by hand.
///
/// ```swift
/// let log = SQLStatementLog()
/// try await SQLStatementLog.$current.withValue(log) { _ = try await storage.read("x") { try await $0.user(id) } }
/// log.statements   // the SELECT by key, with its binding
/// ```
///
/// Outside a test nothing is recorded: ``current`` is `nil`, and a read pays one task-local lookup.
final class SQLStatementLog: Sendable {
    /// The log the reads of the current task append to, if any.
    @TaskLocal static var current: SQLStatementLog?

    private let recorded = NIOLockedValueBox<[SQLStatement]>([])

    /// Every statement recorded so far, in order.
    var statements: [SQLStatement] { recorded.withLockedValue { $0 } }

    /// Records a statement.
    func append(_ statement: SQLStatement) {
        recorded.withLockedValue { $0.append(statement) }
    }
}
