import Foundation

extension StoreRecord {
    /// The kind of a row: the key naming it where a row appears on its own (`{"diary": {…}}`), and the `kind` of a
    /// snapshot section.
    package typealias Kind = RecordKind

    /// The row alone, without its kind, in the current ``PersistedLayout``.
    ///
    /// With `encoder` set to `JSONEncoder.persisted()` (sorted keys) the bytes are that encoder's, written in a
    /// fraction of the time through the SDK's one-pass JSON writer (``WireJSON``; rows write their dates as strings
    /// themselves, so its output is the persisted encoder's), and through `encoder` when that writer gives up.
    package func encodeRow(with encoder: JSONEncoder) throws -> Data {
        func encode<Row: Encodable>(_ row: Row) throws -> Data {
            if let data = try? WireJSON.fastEncode(row) { return data }
            return try encoder.encode(row)
        }
        switch self {
        case .user(let value): return try encode(PersistedUser(value))
        case .credential(let value): return try encode(PersistedCredential(value))
        case .session(let value): return try encode(PersistedSession(value))
        case .device(let value): return try encode(PersistedDevice(value))
        case .diary(let value): return try encode(PersistedDiary(value))
        case .book(let value): return try encode(PersistedBook(value))
        case .membership(let value): return try encode(PersistedMembership(value))
        case .comment(let value): return try encode(PersistedComment(value))
        case .post(let value): return try encode(PersistedPost(value))
        case .like(let value): return try encode(PersistedLike(value))
        case .follow(let value), .block(let value), .anonymousBlock(let value): return try encode(PersistedEdge(value))
        case .report(let value): return try encode(PersistedReport(value))
        case .notification(let value): return try encode(PersistedNotification(value))
        case .blog(let value): return try encode(PersistedBlog(value))
        case .attachment(let value): return try encode(PersistedAttachment(value))
        case .retiredID(let value): return try encode(PersistedRetiredID(value))
        case .outbox(let value): return try encode(PersistedOutboxEntry(value))
        }
    }

    /// A JSON array of rows of one kind, in the layout `decoder` reads (see ``JSONDecoder/persisted(_:)``).
    ///
    /// Rows in the current layout are read through the SDK's one-pass JSON reader (``WireJSON``, several times as
    /// fast), and through `decoder` when that reader gives up on something unusual, so values and errors are always
    /// `decoder`'s.
    package static func decodeRows(of kind: Kind, from data: Data, with decoder: JSONDecoder) throws -> [StoreRecord] {
        let current = (decoder.userInfo[PersistedLayout.userInfoKey] as? PersistedLayout ?? .current) == .current
        func decode<Row: Decodable>(_: Row.Type) throws -> [Row] {
            if current, let rows = try? WireJSON.fastDecode([Row].self, from: data) { return rows }
            return try decoder.decode([Row].self, from: data)
        }
        switch kind {
        case .user: return try decode(PersistedUser.self).map { .user($0.value) }
        case .credential: return try decode(PersistedCredential.self).map { .credential($0.value) }
        case .session: return try decode(PersistedSession.self).map { .session($0.value) }
        case .device: return try decode(PersistedDevice.self).map { .device($0.value) }
        case .diary: return try decode(PersistedDiary.self).map { .diary($0.value) }
        case .book: return try decode(PersistedBook.self).map { .book($0.value) }
        case .membership: return try decode(PersistedMembership.self).map { .membership($0.value) }
        case .comment: return try decode(PersistedComment.self).map { .comment($0.value) }
        case .post: return try decode(PersistedPost.self).map { .post($0.value) }
        case .like: return try decode(PersistedLike.self).map { .like($0.value) }
        case .follow: return try decode(PersistedEdge.self).map { .follow($0.value) }
        case .block: return try decode(PersistedEdge.self).map { .block($0.value) }
        case .anonymousBlock: return try decode(PersistedEdge.self).map { .anonymousBlock($0.value) }
        case .report: return try decode(PersistedReport.self).map { .report($0.value) }
        case .notification: return try decode(PersistedNotification.self).map { .notification($0.value) }
        case .blog: return try decode(PersistedBlog.self).map { .blog($0.value) }
        case .attachment: return try decode(PersistedAttachment.self).map { .attachment($0.value) }
        case .retiredID: return try decode(PersistedRetiredID.self).map { .retiredID($0.value) }
        case .outbox: return try decode(PersistedOutboxEntry.self).map { .outbox($0.value) }
        }
    }
}

/// A row on its own: `{"kind": row}`, for example `{"diary": {…}}`, through the persisted row types (never the
/// public types' own coding). Decoding reads the ``PersistedLayout`` the decoder carries.
extension StoreRecord: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        let kind: Kind?
        if let wire = decoder as? WireValueDecoder {
            // The one-pass reader names the object's only member without building `allKeys` (a third of the cost
            // of reading a journal record's row that way).
            kind = wire.soleMemberName.flatMap(Kind.init(stringValue:))
        } else {
            let keys = container.allKeys
            kind = keys.count == 1 ? keys[0] : nil
        }
        guard let kind else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a row has exactly one known kind key"))
        }
        switch kind {
        case .user: self = .user(try container.decodeRow(PersistedUser.self, forKey: kind))
        case .credential: self = .credential(try container.decodeRow(PersistedCredential.self, forKey: kind))
        case .session: self = .session(try container.decodeRow(PersistedSession.self, forKey: kind))
        case .device: self = .device(try container.decodeRow(PersistedDevice.self, forKey: kind))
        case .diary: self = .diary(try container.decodeRow(PersistedDiary.self, forKey: kind))
        case .book: self = .book(try container.decodeRow(PersistedBook.self, forKey: kind))
        case .membership: self = .membership(try container.decodeRow(PersistedMembership.self, forKey: kind))
        case .comment: self = .comment(try container.decodeRow(PersistedComment.self, forKey: kind))
        case .post: self = .post(try container.decodeRow(PersistedPost.self, forKey: kind))
        case .like: self = .like(try container.decodeRow(PersistedLike.self, forKey: kind))
        case .follow: self = .follow(try container.decodeRow(PersistedEdge.self, forKey: kind))
        case .block: self = .block(try container.decodeRow(PersistedEdge.self, forKey: kind))
        case .anonymousBlock: self = .anonymousBlock(try container.decodeRow(PersistedEdge.self, forKey: kind))
        case .report: self = .report(try container.decodeRow(PersistedReport.self, forKey: kind))
        case .notification: self = .notification(try container.decodeRow(PersistedNotification.self, forKey: kind))
        case .blog: self = .blog(try container.decodeRow(PersistedBlog.self, forKey: kind))
        case .attachment: self = .attachment(try container.decodeRow(PersistedAttachment.self, forKey: kind))
        case .retiredID: self = .retiredID(try container.decodeRow(PersistedRetiredID.self, forKey: kind))
        case .outbox: self = .outbox(try container.decodeRow(PersistedOutboxEntry.self, forKey: kind))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .user(let value): try container.encode(PersistedUser(value), forKey: kind)
        case .credential(let value): try container.encode(PersistedCredential(value), forKey: kind)
        case .session(let value): try container.encode(PersistedSession(value), forKey: kind)
        case .device(let value): try container.encode(PersistedDevice(value), forKey: kind)
        case .diary(let value): try container.encode(PersistedDiary(value), forKey: kind)
        case .book(let value): try container.encode(PersistedBook(value), forKey: kind)
        case .membership(let value): try container.encode(PersistedMembership(value), forKey: kind)
        case .comment(let value): try container.encode(PersistedComment(value), forKey: kind)
        case .post(let value): try container.encode(PersistedPost(value), forKey: kind)
        case .like(let value): try container.encode(PersistedLike(value), forKey: kind)
        case .follow(let value), .block(let value), .anonymousBlock(let value):
            try container.encode(PersistedEdge(value), forKey: kind)
        case .report(let value): try container.encode(PersistedReport(value), forKey: kind)
        case .notification(let value): try container.encode(PersistedNotification(value), forKey: kind)
        case .blog(let value): try container.encode(PersistedBlog(value), forKey: kind)
        case .attachment(let value): try container.encode(PersistedAttachment(value), forKey: kind)
        case .retiredID(let value): try container.encode(PersistedRetiredID(value), forKey: kind)
        case .outbox(let value): try container.encode(PersistedOutboxEntry(value), forKey: kind)
        }
    }
}

@_spi(Storage)
extension StoreRecord {
    /// A row on its own (`{"post": {…}}`) in the current layout, as `JSONDecoder` reads it, in a fraction of the
    /// time: through the SDK's one-pass JSON reader (``WireJSON``), and through `JSONDecoder` when that reader gives
    /// up on something unusual, so values and errors are always `JSONDecoder`'s. For a store that keeps rows as
    /// JSON documents and reads many per request (the PostgreSQL store).
    /// - Parameter data: The row's JSON.
    /// - Throws: `JSONDecoder`'s error when it is not a row.
    public static func decodePersisted(from data: Data) throws -> StoreRecord {
        if let record = try? WireJSON.fastDecode(StoreRecord.self, from: data) { return record }
        return try JSONDecoder.persisted().decode(StoreRecord.self, from: data)
    }

    /// The row on its own (`{"post": {…}}`) in the current layout, with the bytes `JSONEncoder.persisted()` writes,
    /// in a fraction of the time: through the SDK's one-pass JSON writer (``WireJSON``; rows write their dates as
    /// strings themselves, so its output is the persisted encoder's), and through `JSONEncoder` when that writer
    /// gives up on something unusual. For a store that writes rows as JSON documents (the PostgreSQL store).
    /// - Throws: `JSONEncoder`'s error.
    public func encodePersisted() throws -> Data {
        if let data = try? WireJSON.fastEncode(self) { return data }
        return try JSONEncoder.persisted().encode(self)
    }
}
