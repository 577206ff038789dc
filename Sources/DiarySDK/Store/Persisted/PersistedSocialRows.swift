import Foundation

/// A persisted ``LikeRecord`` row.
package struct PersistedLike: PersistedValue {
    package var value: LikeRecord

    package init(_ value: LikeRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case userID, postID, createdAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = LikeRecord(
            userID: try row.decodeID(forKey: .userID), postID: try row.decodeID(forKey: .postID),
            createdAt: try row.decodeDate(forKey: .createdAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.userID, forKey: .userID)
        try row.encodeID(value.postID, forKey: .postID)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
    }
}

/// A persisted ``EdgeRecord`` row: a follow, a block or an anonymous block.
package struct PersistedEdge: PersistedValue {
    package var value: EdgeRecord

    package init(_ value: EdgeRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case from, to, createdAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = EdgeRecord(
            from: try row.decodeID(forKey: .from), to: try row.decodeID(forKey: .to),
            createdAt: try row.decodeDate(forKey: .createdAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.from, forKey: .from)
        try row.encodeID(value.to, forKey: .to)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
    }
}

/// A persisted ``Report`` row.
package struct PersistedReport: PersistedValue {
    package var value: Report

    package init(_ value: Report) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, reporterID, target, reason, detail, createdAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = Report(
            id: try row.decodeID(forKey: .id), reporterID: try row.decodeID(forKey: .reporterID),
            target: try row.decodeRow(PersistedReportTarget.self, forKey: .target),
            reason: try row.decodeName(forKey: .reason, "report reason", PersistedNames.reportReason),
            detail: try row.decode(String.self, forKey: .detail), createdAt: try row.decodeDate(forKey: .createdAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encodeID(value.reporterID, forKey: .reporterID)
        try row.encodeRow(value.target, as: PersistedReportTarget.self, forKey: .target)
        try row.encode(PersistedNames.name(of: value.reason), forKey: .reason)
        try row.encode(value.detail, forKey: .detail)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
    }
}

/// A persisted ``NotificationRecord`` row.
package struct PersistedNotification: PersistedValue {
    package var value: NotificationRecord

    package init(_ value: NotificationRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, recipientID, kind, actorID, anonymousActorID, bookID, diaryID, postID, commentID, createdAt, isRead
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = NotificationRecord(
            id: try row.decodeID(forKey: .id), recipientID: try row.decodeID(forKey: .recipientID),
            kind: try row.decodeName(forKey: .kind, "notification kind", PersistedNames.notificationKind),
            actorID: try row.decodeIDIfPresent(forKey: .actorID),
            anonymousActorID: try row.decodeIDIfPresent(forKey: .anonymousActorID),
            bookID: try row.decodeIDIfPresent(forKey: .bookID), diaryID: try row.decodeIDIfPresent(forKey: .diaryID),
            postID: try row.decodeIDIfPresent(forKey: .postID), commentID: try row.decodeIDIfPresent(forKey: .commentID),
            createdAt: try row.decodeDate(forKey: .createdAt), isRead: try row.decode(Bool.self, forKey: .isRead))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encodeID(value.recipientID, forKey: .recipientID)
        try row.encode(PersistedNames.name(of: value.kind), forKey: .kind)
        try row.encodeIDIfPresent(value.actorID, forKey: .actorID)
        try row.encodeIDIfPresent(value.anonymousActorID, forKey: .anonymousActorID)
        try row.encodeIDIfPresent(value.bookID, forKey: .bookID)
        try row.encodeIDIfPresent(value.diaryID, forKey: .diaryID)
        try row.encodeIDIfPresent(value.postID, forKey: .postID)
        try row.encodeIDIfPresent(value.commentID, forKey: .commentID)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
        try row.encode(value.isRead, forKey: .isRead)
    }
}

/// A persisted ``Blog`` row.
package struct PersistedBlog: PersistedValue {
    package var value: Blog

    package init(_ value: Blog) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, ownerID, title, siteURL, feedURL, isPrimary, sync, createdAt
    }

    enum SyncKeys: String, CodingKey {
        case lastSyncedAt, etag, lastModified, lastError
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        let sync = try row.nestedContainer(keyedBy: SyncKeys.self, forKey: .sync)
        value = Blog(
            id: try row.decodeID(forKey: .id), ownerID: try row.decodeID(forKey: .ownerID),
            title: try row.decode(String.self, forKey: .title), siteURL: try row.decodeURL(forKey: .siteURL),
            feedURL: try row.decodeURL(forKey: .feedURL), isPrimary: try row.decode(Bool.self, forKey: .isPrimary),
            sync: BlogSyncState(
                lastSyncedAt: try sync.decodeDateIfPresent(forKey: .lastSyncedAt),
                etag: try sync.decodeIfPresent(String.self, forKey: .etag),
                lastModified: try sync.decodeIfPresent(String.self, forKey: .lastModified),
                lastError: try sync.decodeIfPresent(String.self, forKey: .lastError)),
            createdAt: try row.decodeDate(forKey: .createdAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encodeID(value.ownerID, forKey: .ownerID)
        try row.encode(value.title, forKey: .title)
        try row.encodeURL(value.siteURL, forKey: .siteURL)
        try row.encodeURL(value.feedURL, forKey: .feedURL)
        try row.encode(value.isPrimary, forKey: .isPrimary)
        var sync = row.nestedContainer(keyedBy: SyncKeys.self, forKey: .sync)
        try sync.encodeDateIfPresent(value.sync.lastSyncedAt, forKey: .lastSyncedAt)
        try sync.encodeIfPresent(value.sync.etag, forKey: .etag)
        try sync.encodeIfPresent(value.sync.lastModified, forKey: .lastModified)
        try sync.encodeIfPresent(value.sync.lastError, forKey: .lastError)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
    }
}

/// A persisted ``RetiredIDRecord`` row: `{"id": "…", "kind": "post", "retiredAt": "…"}`.
package struct PersistedRetiredID: PersistedValue {
    package var value: RetiredIDRecord

    package init(_ value: RetiredIDRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, retiredAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        let name = try row.decode(String.self, forKey: .kind)
        guard let kind = RecordKind(rawValue: name), [.diary, .post, .comment].contains(kind) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: row, debugDescription: "'\(name)' is not a kind of row whose ids are retired")
        }
        value = RetiredIDRecord(
            id: try row.decodeID(EntityID<RetiredIDRecord>.self, forKey: .id).rawValue, kind: kind,
            retiredAt: try row.decodeDate(forKey: .retiredAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(EntityID<RetiredIDRecord>(value.id), forKey: .id)
        try row.encode(value.kind.rawValue, forKey: .kind)
        try row.encodeDate(value.retiredAt, forKey: .retiredAt)
    }
}

/// A persisted ``OutboxRecord`` row: `{"id": "…", "sequence": 3, "userID": "…", "subject": "…",
/// "operation": "diaries.write", "payload": "{…}", "createdAt": "…", "attempts": 0}`.
package struct PersistedOutboxEntry: PersistedValue {
    package var value: OutboxRecord

    package init(_ value: OutboxRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, sequence, userID, subject, operation, payload, createdAt, attempts
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = OutboxRecord(
            id: try row.decodeID(EntityID<OutboxRecord>.self, forKey: .id).rawValue,
            sequence: try row.decode(Int.self, forKey: .sequence), userID: try row.decodeID(forKey: .userID),
            subject: try row.decodeID(EntityID<OutboxRecord>.self, forKey: .subject).rawValue,
            operation: try row.decode(String.self, forKey: .operation),
            payload: try row.decode(String.self, forKey: .payload), createdAt: try row.decodeDate(forKey: .createdAt),
            attempts: try row.decode(Int.self, forKey: .attempts))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(EntityID<OutboxRecord>(value.id), forKey: .id)
        try row.encode(value.sequence, forKey: .sequence)
        try row.encodeID(value.userID, forKey: .userID)
        try row.encodeID(EntityID<OutboxRecord>(value.subject), forKey: .subject)
        try row.encode(value.operation, forKey: .operation)
        try row.encode(value.payload, forKey: .payload)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
        try row.encode(value.attempts, forKey: .attempts)
    }
}
