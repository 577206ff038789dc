import Foundation

/// The persisted names of the enums without values inside rows, pinned here rather than taken from the cases'
/// raw values, so renaming a case does not change a store. Every layout uses the same names.
enum PersistedNames {
    static func name(of visibility: Diary.Visibility) -> String {
        switch visibility {
        case .private: "private"
        case .members: "members"
        case .shared: "shared"
        }
    }

    static func visibility(_ name: String) -> Diary.Visibility? {
        switch name {
        case "private": .private
        case "members": .members
        case "shared": .shared
        default: nil
        }
    }

    static func name(of role: BookMember.Role) -> String {
        switch role {
        case .owner: "owner"
        case .member: "member"
        }
    }

    static func role(_ name: String) -> BookMember.Role? {
        switch name {
        case "owner": .owner
        case "member": .member
        default: nil
        }
    }

    static func name(of platform: DeviceToken.Platform) -> String {
        switch platform {
        case .apns: "apns"
        case .fcm: "fcm"
        }
    }

    static func platform(_ name: String) -> DeviceToken.Platform? {
        switch name {
        case "apns": .apns
        case "fcm": .fcm
        default: nil
        }
    }

    static func name(of kind: NotificationKind) -> String {
        switch kind {
        case .newEntryInBook: "newEntryInBook"
        case .newMember: "newMember"
        case .yourTurn: "yourTurn"
        case .nudge: "nudge"
        case .commentOnEntry: "commentOnEntry"
        case .commentOnPost: "commentOnPost"
        case .replyToComment: "replyToComment"
        }
    }

    static func notificationKind(_ name: String) -> NotificationKind? {
        NotificationKind.allCases.first { self.name(of: $0) == name }
    }

    static func name(of reason: ReportReason) -> String {
        switch reason {
        case .spam: "spam"
        case .abuse: "abuse"
        case .inappropriate: "inappropriate"
        case .impersonation: "impersonation"
        case .other: "other"
        }
    }

    static func reportReason(_ name: String) -> ReportReason? {
        ReportReason.allCases.first { self.name(of: $0) == name }
    }
}

extension KeyedDecodingContainer {
    /// A persisted name, mapped by `parse`; an unknown name is a decoding error naming it.
    func decodeName<Value>(forKey key: Key, _ what: String, _ parse: (String) -> Value?) throws -> Value {
        let name = try decode(String.self, forKey: key)
        guard let value = parse(name) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "'\(name)' is not a \(what)")
        }
        return value
    }
}
