import Foundation

/// A write in progress: reads see its own changes; if it throws, ``rollback()`` restores every row.
package struct DiaryTransaction: Sendable {
    /// The database, including this transaction's changes so far.
    package private(set) var database: DiaryDatabase
    /// The changes so far, in order.
    package private(set) var mutations: [StoreMutation] = []
    /// Attachment files to delete once the transaction is durable.
    package private(set) var removedBlobs: [Attachment.ID] = []

    package init(database: DiaryDatabase) {
        self.database = database
    }

    /// Inserts or replaces a row.
    package mutating func put(_ record: StoreRecord) {
        let before = database.put(record)
        if before != record { mutations.append(StoreMutation(before: before, after: record)) }
    }

    /// Removes a row if it exists.
    package mutating func remove(_ key: RecordKey) {
        if let before = database.remove(key) {
            mutations.append(StoreMutation(before: before, after: nil))
            if case .attachment(let attachment) = before { removedBlobs.append(attachment.id) }
        }
    }

    /// Undoes every change, newest first.
    package mutating func rollback() {
        for mutation in mutations.reversed() {
            if let after = mutation.after { database.remove(after.key) }
            if let before = mutation.before { database.put(before) }
        }
        mutations.removeAll()
        removedBlobs.removeAll()
    }

    /// Runs `body` as one transaction on `database`, then `commit` (which makes it durable), rolling back when
    /// either throws. The database is moved, not copied, so its storage stays uniquely referenced and mutations do
    /// not copy whole tables; for the same reason the result carries the changes but never the database.
    package static func run<Result>(
        on database: inout DiaryDatabase, _ body: (inout DiaryTransaction) throws -> Result,
        commit: (DiaryTransaction) throws -> Void
    ) throws -> (result: Result, mutations: [StoreMutation], removedBlobs: [Attachment.ID]) {
        var transaction = DiaryTransaction(database: DiaryDatabase())
        swap(&transaction.database, &database)
        defer { swap(&transaction.database, &database) }
        do {
            let result = try body(&transaction)
            try commit(transaction)
            return (result, transaction.mutations, transaction.removedBlobs)
        } catch {
            transaction.rollback()
            throw error
        }
    }
}
