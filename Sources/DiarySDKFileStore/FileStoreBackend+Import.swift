@_spi(Storage) import DiarySDK
import Foundation

extension FileStoreBackend {
    /// Imports diary entries written elsewhere (an export, another app, a benchmark's data set) in one durable
    /// transaction: all of them are stored when this returns, or none.
    ///
    /// Entries keep their ids and dates; an entry whose id is already stored as an entry of the same author replaces
    /// it, so an import can be repeated. An id that another author's entry, a post or a comment has, or that a deleted
    /// one had, is refused. The journal grows by the size of the import and a compaction into a new snapshot follows in the
    /// background.
    /// - Parameter entries: The entries.
    /// - Throws: ``DiaryError`` `.invalidInput` when an entry's author, book or image is not in the store (`field`
    ///   names which), `.conflict` (field `id`, ``DiaryError/Reason/alreadyUsed``) when its id is used by something
    ///   else (nothing is imported then), `.unavailable` when the journal cannot be written.
    /// - Complexity: O(n) in the number of entries.
    public func importEntries(_ entries: [Diary]) async throws {
        try await store.write("diaries.import") { transaction in
            for entry in entries {
                guard try await transaction.contains(.user(entry.authorID)) else {
                    throw DiaryError.invalid("authorID", .invalidReference, "entry \(entry.id): no user \(entry.authorID)")
                }
                if let bookID = entry.bookID, try await !transaction.contains(.book(bookID)) {
                    throw DiaryError.invalid("bookID", .invalidReference, "entry \(entry.id): no book \(bookID)")
                }
                for image in entry.images where try await transaction.attachment(image.id)?.ownerID != entry.authorID {
                    throw DiaryError.invalid("images", .invalidReference, "entry \(entry.id): no upload \(image.id)")
                }
                for record in try await transaction.records(DiaryEngine.keys(usedBy: entry.id.rawValue)).values {
                    if case .diary(let stored) = record, stored.authorID == entry.authorID { continue }
                    throw DiaryError(
                        .conflict, "entry \(entry.id): the id is or was in use; choose a new one", field: "id",
                        reason: .alreadyUsed)
                }
                try await transaction.put(.diary(entry))
            }
        }
    }
}
