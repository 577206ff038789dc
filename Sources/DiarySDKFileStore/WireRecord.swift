@_spi(Storage) import DiarySDK
import Foundation

/// A ``StoreRecord`` as the file store writes it: one JSON object with one key naming the kind,
/// `{"diary": {...}}`, `{"user": {...}}`, so a person reading a snapshot sees the entity itself.
struct WireRecord: Codable, Sendable {
    var record: StoreRecord

    init(_ record: StoreRecord) {
        self.record = record
    }

    enum Kind: String, CodingKey, CaseIterable {
        case user, credential, session, device, diary, book, membership, comment, post, like, follow, block, report
        case notification, blog, attachment, anonymousBlock
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard container.allKeys.count == 1, let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a record has exactly one known kind key"))
        }
        switch kind {
        case .user: record = .user(try container.decode(User.self, forKey: kind))
        case .credential: record = .credential(try container.decode(CredentialRecord.self, forKey: kind))
        case .session: record = .session(try container.decode(SessionRecord.self, forKey: kind))
        case .device: record = .device(try container.decode(DeviceRecord.self, forKey: kind))
        case .diary: record = .diary(try container.decode(Diary.self, forKey: kind))
        case .book: record = .book(try container.decode(DiaryBook.self, forKey: kind))
        case .membership: record = .membership(try container.decode(MembershipRecord.self, forKey: kind))
        case .comment: record = .comment(try container.decode(CommentRecord.self, forKey: kind))
        case .post: record = .post(try container.decode(PostRecord.self, forKey: kind))
        case .like: record = .like(try container.decode(LikeRecord.self, forKey: kind))
        case .follow: record = .follow(try container.decode(EdgeRecord.self, forKey: kind))
        case .block: record = .block(try container.decode(EdgeRecord.self, forKey: kind))
        case .anonymousBlock: record = .anonymousBlock(try container.decode(EdgeRecord.self, forKey: kind))
        case .report: record = .report(try container.decode(Report.self, forKey: kind))
        case .notification: record = .notification(try container.decode(NotificationRecord.self, forKey: kind))
        case .blog: record = .blog(try container.decode(Blog.self, forKey: kind))
        case .attachment: record = .attachment(try container.decode(Attachment.self, forKey: kind))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch record {
        case .user(let value): try container.encode(value, forKey: .user)
        case .credential(let value): try container.encode(value, forKey: .credential)
        case .session(let value): try container.encode(value, forKey: .session)
        case .device(let value): try container.encode(value, forKey: .device)
        case .diary(let value): try container.encode(value, forKey: .diary)
        case .book(let value): try container.encode(value, forKey: .book)
        case .membership(let value): try container.encode(value, forKey: .membership)
        case .comment(let value): try container.encode(value, forKey: .comment)
        case .post(let value): try container.encode(value, forKey: .post)
        case .like(let value): try container.encode(value, forKey: .like)
        case .follow(let value): try container.encode(value, forKey: .follow)
        case .block(let value): try container.encode(value, forKey: .block)
        case .anonymousBlock(let value): try container.encode(value, forKey: .anonymousBlock)
        case .report(let value): try container.encode(value, forKey: .report)
        case .notification(let value): try container.encode(value, forKey: .notification)
        case .blog(let value): try container.encode(value, forKey: .blog)
        case .attachment(let value): try container.encode(value, forKey: .attachment)
        }
    }
}

/// One journal record: a committed transaction's changes, in order.
///
/// `{"sequence": 7, "changes": [{"put": {"diary": {...}}}, {"delete": {"diary": {"_0": "…"}}}]}`: a put carries
/// the row as it is after the transaction, a delete the key of the removed row. Sequences run on by one from record
/// to record and from journal to journal.
///
/// The first record of a journal written since schema 3 is its start record, `{"changes": [], "opensJournal": 4,
/// "sequence": 41}`: it changes nothing and says that the journals before it ended at sequence 41, so records lost
/// from the end of an older journal are found even when the newer one holds nothing else yet.
struct JournalTransaction: Codable, Sendable {
    struct Change: Codable, Sendable {
        var put: WireRecord?
        var delete: RecordKey?
    }

    var sequence: UInt64
    var changes: [Change]
    /// Set on a start record only: the generation of the journal it opens.
    var opensJournal: Int?

    init(sequence: UInt64, mutations: [StoreMutation]) {
        self.sequence = sequence
        self.changes = mutations.compactMap { mutation in
            if let after = mutation.after { return Change(put: WireRecord(after), delete: nil) }
            if let before = mutation.before { return Change(put: nil, delete: before.key) }
            return nil
        }
    }

    /// The start record of journal `generation`, written after the transaction with sequence `sequence`.
    init(opening generation: Int, after sequence: UInt64) {
        self.sequence = sequence
        self.changes = []
        self.opensJournal = generation
    }

    /// Applies the changes to a database, as when the transaction first ran.
    func apply(to database: inout DiaryDatabase) {
        for change in changes {
            if let put = change.put {
                database.put(put.record)
            } else if let key = change.delete {
                database.remove(key)
            }
        }
    }
}
