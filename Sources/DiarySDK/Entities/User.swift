import Foundation

/// A person with an account.
///
/// What another user sees of a `User` is its public profile: ``email`` and ``settings`` are `nil` unless the
/// viewer is the user themself.
public struct User: Identifiable, Hashable, Sendable, Codable {
    /// A user's identifier.
    public typealias ID = EntityID<User>

    /// The identifier.
    public var id: ID
    /// The unique nickname (see ``Validation/nickname(_:)`` for its rules).
    public var nickname: String
    /// The sign-in email; `nil` when viewed by anyone but its owner.
    public var email: String?
    /// A short self-introduction.
    public var bio: String
    /// The profile picture, if any.
    public var avatar: ImageReference?
    /// When the account was created.
    public var createdAt: Date
    /// The owner's preferences; `nil` when viewed by anyone but its owner.
    public var settings: UserSettings?

    /// Creates a user value.
    public init(
        id: ID, nickname: String, email: String? = nil, bio: String = "", avatar: ImageReference? = nil,
        createdAt: Date, settings: UserSettings? = nil
    ) {
        self.id = id
        self.nickname = nickname
        self.email = email
        self.bio = bio
        self.avatar = avatar
        self.createdAt = createdAt
        self.settings = settings
    }

    /// The profile as another user may see it: no email, no settings.
    public var publicProfile: User {
        var copy = self
        copy.email = nil
        copy.settings = nil
        return copy
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case nickname = "nickname"
        case email = "email"
        case bio = "bio"
        case avatar = "avatar"
        case createdAt = "createdAt"
        case settings = "settings"
    }
}

/// A user's preferences.
public struct UserSettings: Hashable, Sendable, Codable {
    /// The daily writing reminder.
    public var dailyReminder: DailyReminder
    /// The kinds of notification the user wants to receive.
    public var notifications: Set<NotificationKind>
    /// Whether entries deleted from a shared book still show as a trace in the user's view of the book.
    public var showsDeletedEntryTraces: Bool
    /// The user's time zone identifier (`"Asia/Seoul"`); `nil` uses the environment's default zone.
    public var timeZoneIdentifier: String?

    /// Creates settings; the defaults receive every notification and show deleted-entry traces.
    public init(
        dailyReminder: DailyReminder = .init(), notifications: Set<NotificationKind> = Set(NotificationKind.allCases),
        showsDeletedEntryTraces: Bool = true, timeZoneIdentifier: String? = nil
    ) {
        self.dailyReminder = dailyReminder
        self.notifications = notifications
        self.showsDeletedEntryTraces = showsDeletedEntryTraces
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case dailyReminder = "dailyReminder"
        case notifications = "notifications"
        case showsDeletedEntryTraces = "showsDeletedEntryTraces"
        case timeZoneIdentifier = "timeZoneIdentifier"
    }
}

extension UserSettings {
    /// Encodes the settings with ``notifications`` sorted by raw value: a `Set` iterates in an order that depends on
    /// the process's hash seed and the set's history, and the same settings must always give the same bytes (in a
    /// snapshot, a journal record or a response). Decoding accepts any order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dailyReminder, forKey: .dailyReminder)
        try container.encode(notifications.map(\.rawValue).sorted(), forKey: .notifications)
        try container.encode(showsDeletedEntryTraces, forKey: .showsDeletedEntryTraces)
        try container.encodeIfPresent(timeZoneIdentifier, forKey: .timeZoneIdentifier)
    }
}

/// Changes to some of a user's settings, applied by the backend to the settings as they are when it writes: two
/// devices that each change one setting at once both keep their change (replacing the whole value with
/// ``UserRepository/updateSettings(_:)`` would let the later write undo the earlier one).
public struct SettingsEdit: Hashable, Sendable, Codable {
    /// A new daily reminder; `nil` leaves it.
    public var dailyReminder: DailyReminder?
    /// Notification kinds to turn on.
    public var enableNotifications: Set<NotificationKind>
    /// Notification kinds to turn off (wins over ``enableNotifications`` for a kind in both).
    public var disableNotifications: Set<NotificationKind>
    /// Whether deleted entries of shared books show as traces; `nil` leaves it.
    public var showsDeletedEntryTraces: Bool?
    /// A new time zone identifier; `nil` leaves it.
    public var timeZoneIdentifier: String?

    /// Creates an edit; every part left out is left as it is.
    public init(
        dailyReminder: DailyReminder? = nil, enableNotifications: Set<NotificationKind> = [],
        disableNotifications: Set<NotificationKind> = [], showsDeletedEntryTraces: Bool? = nil,
        timeZoneIdentifier: String? = nil
    ) {
        self.dailyReminder = dailyReminder
        self.enableNotifications = enableNotifications
        self.disableNotifications = disableNotifications
        self.showsDeletedEntryTraces = showsDeletedEntryTraces
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    /// The settings with this edit applied.
    public func applied(to settings: UserSettings) -> UserSettings {
        var settings = settings
        if let dailyReminder { settings.dailyReminder = dailyReminder }
        settings.notifications.formUnion(enableNotifications)
        settings.notifications.subtract(disableNotifications)
        if let showsDeletedEntryTraces { settings.showsDeletedEntryTraces = showsDeletedEntryTraces }
        if let timeZoneIdentifier { settings.timeZoneIdentifier = timeZoneIdentifier }
        return settings
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case dailyReminder = "dailyReminder"
        case enableNotifications = "enableNotifications"
        case disableNotifications = "disableNotifications"
        case showsDeletedEntryTraces = "showsDeletedEntryTraces"
        case timeZoneIdentifier = "timeZoneIdentifier"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        dailyReminder = try container.decodeIfPresent(DailyReminder.self, forKey: .dailyReminder)
        enableNotifications = try container.decodeIfPresent(Set<NotificationKind>.self, forKey: .enableNotifications) ?? []
        disableNotifications = try container.decodeIfPresent(Set<NotificationKind>.self, forKey: .disableNotifications) ?? []
        showsDeletedEntryTraces = try container.decodeIfPresent(Bool.self, forKey: .showsDeletedEntryTraces)
        timeZoneIdentifier = try container.decodeIfPresent(String.self, forKey: .timeZoneIdentifier)
    }

    /// Leaves out what does not change, and writes the kinds sorted (the same edit always gives the same bytes).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(dailyReminder, forKey: .dailyReminder)
        if !enableNotifications.isEmpty {
            try container.encode(enableNotifications.map(\.rawValue).sorted(), forKey: .enableNotifications)
        }
        if !disableNotifications.isEmpty {
            try container.encode(disableNotifications.map(\.rawValue).sorted(), forKey: .disableNotifications)
        }
        try container.encodeIfPresent(showsDeletedEntryTraces, forKey: .showsDeletedEntryTraces)
        try container.encodeIfPresent(timeZoneIdentifier, forKey: .timeZoneIdentifier)
    }
}

/// The daily reminder to write: on or off, and at which local time.
public struct DailyReminder: Hashable, Sendable, Codable {
    /// Whether the reminder is on.
    public var isEnabled: Bool
    /// The hour, 0–23.
    public var hour: Int
    /// The minute, 0–59.
    public var minute: Int

    /// Creates a reminder setting; off at 21:00 by default.
    public init(isEnabled: Bool = false, hour: Int = 21, minute: Int = 0) {
        self.isEnabled = isEnabled
        self.hour = hour
        self.minute = minute
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case isEnabled = "isEnabled"
        case hour = "hour"
        case minute = "minute"
    }
}

/// The short public identity shown beside content: who wrote it.
public struct AuthorSummary: Hashable, Sendable, Codable {
    /// The author's id.
    public var id: User.ID
    /// The author's nickname.
    public var nickname: String
    /// The author's picture.
    public var avatar: ImageReference?

    /// Creates a summary.
    public init(id: User.ID, nickname: String, avatar: ImageReference? = nil) {
        self.id = id
        self.nickname = nickname
        self.avatar = avatar
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case nickname = "nickname"
        case avatar = "avatar"
    }
}

/// A device's push-notification token, registered again at every sign-in.
public struct DeviceToken: Hashable, Sendable, Codable {
    /// The push service the token belongs to.
    public enum Platform: String, Hashable, Sendable, Codable {
        /// Apple Push Notification service.
        case apns
        /// Firebase Cloud Messaging.
        case fcm
    }

    /// The token as the push service issued it.
    public var token: String
    /// The push service.
    public var platform: Platform

    /// Creates a token value.
    public init(token: String, platform: Platform) {
        self.token = token
        self.platform = platform
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case token = "token"
        case platform = "platform"
    }
}
