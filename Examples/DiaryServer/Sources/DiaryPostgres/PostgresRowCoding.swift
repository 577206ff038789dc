@_spi(Storage) import DiarySDK
import Foundation

/// How rows, keys and committed mutations are written to and read from their columns.
///
/// A row's `doc` is the ``StoreRecord``'s persisted `Codable` form (`{"post": {…}}`, docs/FileStoreFormat.md),
/// written with the encoder the file store uses, so renaming a public property never moves a stored row.
enum PostgresRowCoding {
    /// A row's `doc` column.
    static func document(_ record: StoreRecord) throws -> String {
        String(decoding: try record.encodePersisted(), as: UTF8.self)
    }

    /// The row in a `doc` column.
    /// - Throws: ``DiaryError/Code/storageCorrupted`` when it is not a row of `kind`.
    static func record(from document: String, kind: RecordKind) throws -> StoreRecord {
        let record: StoreRecord
        do {
            record = try StoreRecord.decodePersisted(from: Data(document.utf8))
        } catch {
            throw DiaryError(.storageCorrupted, "a stored \(kind.rawValue) row cannot be read", underlying: error)
        }
        guard record.kind == kind else {
            throw DiaryError(.storageCorrupted, "the \(kind.rawValue) table holds a \(record.kind.rawValue) row")
        }
        return record
    }

    /// A row's primary key in its kind's table: its key fields, ids as lowercase UUIDs, joined by `|` (a session's
    /// token hash and a device's token come last, so any text in them cannot make two keys collide).
    static func key(_ key: RecordKey) -> String {
        switch key {
        case .user(let id), .credential(let id): id.postgresKeyText
        case .session(let hash): hash
        case .device(let user, let token): "\(user.postgresKeyText)|\(token)"
        case .diary(let id): id.postgresKeyText
        case .book(let id): id.postgresKeyText
        case .membership(let book, let user): "\(book.postgresKeyText)|\(user.postgresKeyText)"
        case .comment(let id): id.postgresKeyText
        case .post(let id): id.postgresKeyText
        case .like(let user, let post): "\(user.postgresKeyText)|\(post.postgresKeyText)"
        case .follow(let from, let to), .block(let from, let to), .anonymousBlock(let from, let to):
            "\(from.postgresKeyText)|\(to.postgresKeyText)"
        case .report(let id): id.postgresKeyText
        case .notification(let id): id.postgresKeyText
        case .blog(let id): id.postgresKeyText
        case .attachment(let id): id.postgresKeyText
        case .retiredID(let id), .outbox(let id): id.postgresKeyText
        }
    }

    /// A committed transaction's mutations as the change log's `mutations` column holds them.
    private struct LoggedMutation: Decodable {
        var before: StoreRecord?
        var after: StoreRecord?
    }

    /// The change log's `mutations` column for a transaction.
    static func changeLogDocument(_ mutations: [StoreMutation]) throws -> String {
        changeLogDocument(entries: try mutations.map {
            changeLogEntry(before: try $0.before.map(document), after: try $0.after.map(document))
        })
    }

    /// One mutation of a change log's `mutations` column, `{"after": …, "before": …}` (a missing side left out),
    /// from the rows' `doc`s (``document(_:)``), which a write has encoded already.
    static func changeLogEntry(before: String?, after: String?) -> String {
        switch (before, after) {
        case (let before?, let after?): "{\"after\":\(after),\"before\":\(before)}"
        case (let before?, nil): "{\"before\":\(before)}"
        case (nil, let after?): "{\"after\":\(after)}"
        case (nil, nil): "{}"
        }
    }

    /// A change log's `mutations` column from its entries (``changeLogEntry(before:after:)``).
    static func changeLogDocument(entries: [String]) -> String {
        "[" + entries.joined(separator: ",") + "]"
    }

    /// The mutations in a change log's `mutations` column.
    /// - Throws: ``DiaryError/Code/storageCorrupted`` when it cannot be read.
    static func mutations(fromChangeLog document: String) throws -> [StoreMutation] {
        do {
            return try JSONDecoder().decode([LoggedMutation].self, from: Data(document.utf8)).map {
                StoreMutation(before: $0.before, after: $0.after)
            }
        } catch {
            throw DiaryError(.storageCorrupted, "a change log entry cannot be read", underlying: error)
        }
    }
}
