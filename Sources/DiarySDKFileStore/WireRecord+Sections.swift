@_spi(Storage) import DiarySDK
import Foundation

extension WireRecord {
    /// The kind key of a record.
    static func kind(of record: StoreRecord) -> Kind {
        switch record {
        case .user: .user
        case .credential: .credential
        case .session: .session
        case .device: .device
        case .diary: .diary
        case .book: .book
        case .membership: .membership
        case .comment: .comment
        case .post: .post
        case .like: .like
        case .follow: .follow
        case .block: .block
        case .anonymousBlock: .anonymousBlock
        case .report: .report
        case .notification: .notification
        case .blog: .blog
        case .attachment: .attachment
        }
    }

    /// The JSON of a record's value alone, without the kind key (a snapshot section names the kind once).
    static func encodeValue(of record: StoreRecord, with encoder: JSONEncoder) throws -> Data {
        switch record {
        case .user(let value): try encoder.encode(value)
        case .credential(let value): try encoder.encode(value)
        case .session(let value): try encoder.encode(value)
        case .device(let value): try encoder.encode(value)
        case .diary(let value): try encoder.encode(value)
        case .book(let value): try encoder.encode(value)
        case .membership(let value): try encoder.encode(value)
        case .comment(let value): try encoder.encode(value)
        case .post(let value): try encoder.encode(value)
        case .like(let value): try encoder.encode(value)
        case .follow(let value): try encoder.encode(value)
        case .block(let value): try encoder.encode(value)
        case .anonymousBlock(let value): try encoder.encode(value)
        case .report(let value): try encoder.encode(value)
        case .notification(let value): try encoder.encode(value)
        case .blog(let value): try encoder.encode(value)
        case .attachment(let value): try encoder.encode(value)
        }
    }

    /// Decodes a JSON array of values of one kind.
    static func decodeArray(of kind: Kind, from data: Data, with decoder: JSONDecoder) throws -> [StoreRecord] {
        switch kind {
        case .user: try decoder.decode([User].self, from: data).map(StoreRecord.user)
        case .credential: try decoder.decode([CredentialRecord].self, from: data).map(StoreRecord.credential)
        case .session: try decoder.decode([SessionRecord].self, from: data).map(StoreRecord.session)
        case .device: try decoder.decode([DeviceRecord].self, from: data).map(StoreRecord.device)
        case .diary: try decoder.decode([Diary].self, from: data).map(StoreRecord.diary)
        case .book: try decoder.decode([DiaryBook].self, from: data).map(StoreRecord.book)
        case .membership: try decoder.decode([MembershipRecord].self, from: data).map(StoreRecord.membership)
        case .comment: try decoder.decode([CommentRecord].self, from: data).map(StoreRecord.comment)
        case .post: try decoder.decode([PostRecord].self, from: data).map(StoreRecord.post)
        case .like: try decoder.decode([LikeRecord].self, from: data).map(StoreRecord.like)
        case .follow: try decoder.decode([EdgeRecord].self, from: data).map(StoreRecord.follow)
        case .block: try decoder.decode([EdgeRecord].self, from: data).map(StoreRecord.block)
        case .anonymousBlock: try decoder.decode([EdgeRecord].self, from: data).map(StoreRecord.anonymousBlock)
        case .report: try decoder.decode([Report].self, from: data).map(StoreRecord.report)
        case .notification: try decoder.decode([NotificationRecord].self, from: data).map(StoreRecord.notification)
        case .blog: try decoder.decode([Blog].self, from: data).map(StoreRecord.blog)
        case .attachment: try decoder.decode([Attachment].self, from: data).map(StoreRecord.attachment)
        }
    }
}
