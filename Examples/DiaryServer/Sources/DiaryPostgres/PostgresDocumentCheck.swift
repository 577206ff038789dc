@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A check of one document (``PostgresDocumentTable/owner(id:arrayMember:holds:)``) that a task needs passed before
/// anything it does is committed or answered, read with the task's first batched read instead of as a statement of
/// its own: a server checks the session of every request this way, saving a round trip and a connection lease.
///
/// While ``pending`` is set for a task and the check is not settled, the store:
/// - adds the check to the next ``StorageReadBatch`` the task reads in a transaction, and runs `verify` on what it
///   finds; a `verify` that throws fails that read, so a body that does not catch the error stops there;
/// - otherwise runs it on the transaction's connection before `COMMIT` (and before a body's error is reported, so a
///   caller that fails the check learns nothing else), and rolls back when it fails;
/// - reads it again after a write attempt that failed to commit and is retried.
///
/// What the task does outside a transaction of the store is not covered: the caller settles the check itself, with
/// ``settle()``, before any such effect and before it answers.
///
/// ```swift
/// let check = PostgresDocumentCheck(table: sessions, id: sid, arrayMember: "expired", element: jti) { found in
///     guard let found, found.owner == userID, !found.holds else {
///         throw DiaryError(.unauthenticated, "the session has ended")
///     }
/// }
/// let feed = try await PostgresDocumentCheck.$pending.withValue(check) {
///     try await engine.repositories.posts.feed(page: .first())
/// }
/// try await check.settle()   // a no-op when a transaction already read it
/// ```
@_spi(Storage)
public final class PostgresDocumentCheck: Sendable {
    /// What the check found: the document's owner and whether its array member holds the element; `nil` when there
    /// is no document.
    public typealias Found = (owner: String, holds: Bool)?

    /// The check the current task's storage transactions carry, if any.
    @TaskLocal public static var pending: PostgresDocumentCheck?

    private enum State {
        case pending
        case passed
        case failed(any Error)
    }

    let table: PostgresDocumentTable
    let id: String
    let arrayMember: String
    let element: String
    private let verify: @Sendable (Found) throws -> Void
    private let state = NIOLockedValueBox(State.pending)

    /// A check of document `id` of `table`.
    /// - Parameters:
    ///   - verify: Judges what was found; what it throws is what every operation the check covers then throws.
    public init(
        table: PostgresDocumentTable, id: String, arrayMember: String, element: String,
        verify: @escaping @Sendable (Found) throws -> Void
    ) {
        self.table = table
        self.id = id
        self.arrayMember = arrayMember
        self.element = element
        self.verify = verify
    }

    /// Whether the document has been read yet.
    public var isSettled: Bool {
        state.withLockedValue { if case .pending = $0 { false } else { true } }
    }

    /// Reads and verifies the document on the pool unless a transaction has already; throws what `verify` threw,
    /// every time it is asked again.
    /// - Throws: `verify`'s error, or ``DiaryError`` when the database refuses.
    public func settle() async throws {
        if try settledVerdict() { return }
        try record(try await table.owner(id: id, arrayMember: arrayMember, holds: element))
    }

    /// Settles the check on `connection`, inside its transaction, unless it is settled already.
    func settle(on connection: PostgresConnection, logger: Logger) async throws {
        if try settledVerdict() { return }
        var statement = SQLStatement()
        table.appendOwnerSelect(to: &statement, id: id, arrayMember: arrayMember, holds: element)
        SQLStatementLog.current?.append(statement)
        var found: Found = nil
        let rows = try await connection.rows(statement, logger: logger, decode: { try $0.decode((String, Bool).self) })
        for try await (owner, holds) in rows { found = (owner, holds) }
        try record(found)
    }

    /// Makes a passed check pending again, to be read anew: after a transaction that read it failed to commit
    /// (PostgreSQL does not vouch for what a `SERIALIZABLE` transaction that then failed read). A failed check stays
    /// failed.
    func reopenAfterFailedAttempt() {
        state.withLockedValue { state in
            if case .passed = state { state = .pending }
        }
    }

    /// Whether the check has passed (`false` while it is pending); throws the failure of a failed check.
    private func settledVerdict() throws -> Bool {
        switch state.withLockedValue({ $0 }) {
        case .pending: return false
        case .passed: return true
        case .failed(let error): throw error
        }
    }

    /// Judges what a read found and keeps the verdict (the first verdict stands).
    func record(_ found: Found) throws {
        let verdict: State
        do {
            try verify(found)
            verdict = .passed
        } catch {
            verdict = .failed(error)
        }
        let kept = state.withLockedValue { state -> State in
            if case .pending = state { state = verdict }
            return state
        }
        if case .failed(let error) = kept { throw error }
    }

    /// Appends the check as one more `(part, sub, text, count)` select of a batched read, its part `-1`: the owner,
    /// and 1 when the array holds the element.
    func appendBatchSelect(to statement: inout SQLStatement) {
        statement.append("SELECT -1, 0, o.owner, o.holds::int::bigint FROM (")
        table.appendOwnerSelect(to: &statement, id: id, arrayMember: arrayMember, holds: element)
        statement.append(") o")
    }
}
