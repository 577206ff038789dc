import Foundation

/// A persisted ``PostRecord`` row.
package struct PersistedPost: PersistedValue {
    package var value: PostRecord

    package init(_ value: PostRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, authorID, isAnonymous, title, body, tags, images, source, day, createdAt, updatedAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = PostRecord(
            id: try row.decodeID(forKey: .id), authorID: try row.decodeID(forKey: .authorID),
            isAnonymous: try row.decode(Bool.self, forKey: .isAnonymous), title: try row.decode(String.self, forKey: .title),
            body: try row.decode(String.self, forKey: .body), tags: try row.decode([String].self, forKey: .tags),
            images: try row.decode([PersistedImage].self, forKey: .images).map(\.value),
            source: try row.decodeRow(PersistedPostSource.self, forKey: .source), day: try row.decodeDay(forKey: .day),
            createdAt: try row.decodeDate(forKey: .createdAt), updatedAt: try row.decodeDate(forKey: .updatedAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encodeID(value.authorID, forKey: .authorID)
        try row.encode(value.isAnonymous, forKey: .isAnonymous)
        try row.encode(value.title, forKey: .title)
        try row.encode(value.body, forKey: .body)
        try row.encode(value.tags, forKey: .tags)
        try row.encode(value.images.map(PersistedImage.init), forKey: .images)
        try row.encodeRow(value.source, as: PersistedPostSource.self, forKey: .source)
        try row.encodeDay(value.day, forKey: .day)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
        try row.encodeDate(value.updatedAt, forKey: .updatedAt)
    }
}

/// A persisted ``CommentRecord`` row.
package struct PersistedComment: PersistedValue {
    package var value: CommentRecord

    package init(_ value: CommentRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, target, parentID, authorID, isAnonymous, body, mood, createdAt, updatedAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = CommentRecord(
            id: try row.decodeID(forKey: .id), target: try row.decodeRow(PersistedCommentTarget.self, forKey: .target),
            parentID: try row.decodeIDIfPresent(forKey: .parentID), authorID: try row.decodeID(forKey: .authorID),
            isAnonymous: try row.decode(Bool.self, forKey: .isAnonymous), body: try row.decode(String.self, forKey: .body),
            mood: try row.decodeMoodIfPresent(forKey: .mood), createdAt: try row.decodeDate(forKey: .createdAt),
            updatedAt: try row.decodeDate(forKey: .updatedAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encodeRow(value.target, as: PersistedCommentTarget.self, forKey: .target)
        try row.encodeIDIfPresent(value.parentID, forKey: .parentID)
        try row.encodeID(value.authorID, forKey: .authorID)
        try row.encode(value.isAnonymous, forKey: .isAnonymous)
        try row.encode(value.body, forKey: .body)
        try row.encodeMoodIfPresent(value.mood, forKey: .mood)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
        try row.encodeDate(value.updatedAt, forKey: .updatedAt)
    }
}
