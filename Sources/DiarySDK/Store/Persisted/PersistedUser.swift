import Foundation

/// A persisted ``User`` row.
package struct PersistedUser: PersistedValue {
    package var value: User

    package init(_ value: User) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, nickname, email, bio, avatar, createdAt, settings
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = User(
            id: try row.decodeID(forKey: .id), nickname: try row.decode(String.self, forKey: .nickname),
            email: try row.decodeIfPresent(String.self, forKey: .email), bio: try row.decode(String.self, forKey: .bio),
            avatar: try row.decodeRowIfPresent(PersistedImage.self, forKey: .avatar),
            createdAt: try row.decodeDate(forKey: .createdAt),
            settings: try row.decodeRowIfPresent(PersistedUserSettings.self, forKey: .settings))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encode(value.nickname, forKey: .nickname)
        try row.encodeIfPresent(value.email, forKey: .email)
        try row.encode(value.bio, forKey: .bio)
        try row.encodeRowIfPresent(value.avatar, as: PersistedImage.self, forKey: .avatar)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
        try row.encodeRowIfPresent(value.settings, as: PersistedUserSettings.self, forKey: .settings)
    }
}

/// A persisted ``UserSettings`` value (inside a user row).
package struct PersistedUserSettings: PersistedValue {
    package var value: UserSettings

    package init(_ value: UserSettings) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case dailyReminder, notifications, showsDeletedEntryTraces, timeZoneIdentifier
    }

    enum ReminderKeys: String, CodingKey {
        case isEnabled, hour, minute
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        let reminder = try row.nestedContainer(keyedBy: ReminderKeys.self, forKey: .dailyReminder)
        var kinds = try row.nestedUnkeyedContainer(forKey: .notifications)
        var notifications: Set<NotificationKind> = []
        while !kinds.isAtEnd {
            let name = try kinds.decode(String.self)
            guard let kind = PersistedNames.notificationKind(name) else {
                throw DecodingError.dataCorruptedError(
                    in: kinds, debugDescription: "'\(name)' is not a notification kind")
            }
            notifications.insert(kind)
        }
        value = UserSettings(
            dailyReminder: DailyReminder(
                isEnabled: try reminder.decode(Bool.self, forKey: .isEnabled),
                hour: try reminder.decode(Int.self, forKey: .hour), minute: try reminder.decode(Int.self, forKey: .minute)),
            notifications: notifications,
            showsDeletedEntryTraces: try row.decode(Bool.self, forKey: .showsDeletedEntryTraces),
            timeZoneIdentifier: try row.decodeIfPresent(String.self, forKey: .timeZoneIdentifier))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        var reminder = row.nestedContainer(keyedBy: ReminderKeys.self, forKey: .dailyReminder)
        try reminder.encode(value.dailyReminder.isEnabled, forKey: .isEnabled)
        try reminder.encode(value.dailyReminder.hour, forKey: .hour)
        try reminder.encode(value.dailyReminder.minute, forKey: .minute)
        try row.encode(value.notifications.map(PersistedNames.name(of:)).sorted(), forKey: .notifications)
        try row.encode(value.showsDeletedEntryTraces, forKey: .showsDeletedEntryTraces)
        try row.encodeIfPresent(value.timeZoneIdentifier, forKey: .timeZoneIdentifier)
    }
}

/// A persisted ``ImageReference`` (an avatar, an entry's or a post's image).
package struct PersistedImage: PersistedValue {
    package var value: ImageReference

    package init(_ value: ImageReference) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, contentType, byteCount
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = ImageReference(
            id: try row.decodeID(forKey: .id), contentType: try row.decode(String.self, forKey: .contentType),
            byteCount: try row.decode(Int.self, forKey: .byteCount))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encode(value.contentType, forKey: .contentType)
        try row.encode(value.byteCount, forKey: .byteCount)
    }
}
