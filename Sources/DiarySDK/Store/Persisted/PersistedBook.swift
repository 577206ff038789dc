import Foundation

/// A persisted ``DiaryBook`` row.
package struct PersistedBook: PersistedValue {
    package var value: DiaryBook

    package init(_ value: DiaryBook) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, title, coverColor, stickers, ownerID, inviteCode, currentTurn, createdAt, updatedAt
    }

    enum StickerKeys: String, CodingKey {
        case name, x, y, rotation
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        var list = try row.nestedUnkeyedContainer(forKey: .stickers)
        var stickers: [Sticker] = []
        while !list.isAtEnd {
            let sticker = try list.nestedContainer(keyedBy: StickerKeys.self)
            stickers.append(
                Sticker(
                    name: try sticker.decode(String.self, forKey: .name), x: try sticker.decode(Double.self, forKey: .x),
                    y: try sticker.decode(Double.self, forKey: .y),
                    rotation: try sticker.decode(Double.self, forKey: .rotation)))
        }
        value = DiaryBook(
            id: try row.decodeID(forKey: .id), title: try row.decode(String.self, forKey: .title),
            coverColor: try row.decode(String.self, forKey: .coverColor), stickers: stickers,
            ownerID: try row.decodeID(forKey: .ownerID),
            inviteCode: try row.decodeIfPresent(String.self, forKey: .inviteCode),
            currentTurn: try row.decodeIDIfPresent(forKey: .currentTurn),
            createdAt: try row.decodeDate(forKey: .createdAt), updatedAt: try row.decodeDate(forKey: .updatedAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encode(value.title, forKey: .title)
        try row.encode(value.coverColor, forKey: .coverColor)
        var list = row.nestedUnkeyedContainer(forKey: .stickers)
        for sticker in value.stickers {
            var item = list.nestedContainer(keyedBy: StickerKeys.self)
            try item.encode(sticker.name, forKey: .name)
            try item.encode(sticker.x, forKey: .x)
            try item.encode(sticker.y, forKey: .y)
            try item.encode(sticker.rotation, forKey: .rotation)
        }
        try row.encodeID(value.ownerID, forKey: .ownerID)
        try row.encodeIfPresent(value.inviteCode, forKey: .inviteCode)
        try row.encodeIDIfPresent(value.currentTurn, forKey: .currentTurn)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
        try row.encodeDate(value.updatedAt, forKey: .updatedAt)
    }
}

/// A persisted ``MembershipRecord`` row.
package struct PersistedMembership: PersistedValue {
    package var value: MembershipRecord

    package init(_ value: MembershipRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case bookID, userID, role, joinedAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = MembershipRecord(
            bookID: try row.decodeID(forKey: .bookID), userID: try row.decodeID(forKey: .userID),
            role: try row.decodeName(forKey: .role, "book role", PersistedNames.role),
            joinedAt: try row.decodeDate(forKey: .joinedAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.bookID, forKey: .bookID)
        try row.encodeID(value.userID, forKey: .userID)
        try row.encode(PersistedNames.name(of: value.role), forKey: .role)
        try row.encodeDate(value.joinedAt, forKey: .joinedAt)
    }
}
