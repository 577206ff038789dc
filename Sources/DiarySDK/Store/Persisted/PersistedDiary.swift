import Foundation

/// A persisted ``Diary`` row (an entry, or the trace of a deleted one).
package struct PersistedDiary: PersistedValue {
    package var value: Diary

    package init(_ value: Diary) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, authorID, bookID, day, title, body, mood, tags, images, visibility, isHidden, isFavourite
        case createdAt, updatedAt, deletedAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = Diary(
            id: try row.decodeID(forKey: .id), authorID: try row.decodeID(forKey: .authorID),
            bookID: try row.decodeIDIfPresent(forKey: .bookID), day: try row.decodeDay(forKey: .day),
            title: try row.decode(String.self, forKey: .title), body: try row.decode(String.self, forKey: .body),
            mood: try row.decodeMoodIfPresent(forKey: .mood), tags: try row.decode([String].self, forKey: .tags),
            images: try row.decode([PersistedImage].self, forKey: .images).map(\.value),
            visibility: try row.decodeName(forKey: .visibility, "visibility", PersistedNames.visibility),
            isHidden: try row.decode(Bool.self, forKey: .isHidden),
            isFavourite: try row.decode(Bool.self, forKey: .isFavourite),
            createdAt: try row.decodeDate(forKey: .createdAt), updatedAt: try row.decodeDate(forKey: .updatedAt),
            deletedAt: try row.decodeDateIfPresent(forKey: .deletedAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encodeID(value.authorID, forKey: .authorID)
        try row.encodeIDIfPresent(value.bookID, forKey: .bookID)
        try row.encodeDay(value.day, forKey: .day)
        try row.encode(value.title, forKey: .title)
        try row.encode(value.body, forKey: .body)
        try row.encodeMoodIfPresent(value.mood, forKey: .mood)
        try row.encode(value.tags, forKey: .tags)
        try row.encode(value.images.map(PersistedImage.init), forKey: .images)
        try row.encode(PersistedNames.name(of: value.visibility), forKey: .visibility)
        try row.encode(value.isHidden, forKey: .isHidden)
        try row.encode(value.isFavourite, forKey: .isFavourite)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
        try row.encodeDate(value.updatedAt, forKey: .updatedAt)
        try row.encodeDateIfPresent(value.deletedAt, forKey: .deletedAt)
    }
}
