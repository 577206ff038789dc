import Foundation

/// A persisted ``CredentialRecord`` row.
package struct PersistedCredential: PersistedValue {
    package var value: CredentialRecord

    package init(_ value: CredentialRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case userID, email, salt, iterations, hash, externalIdentities
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = CredentialRecord(
            userID: try row.decodeID(forKey: .userID), email: try row.decode(String.self, forKey: .email),
            salt: try row.decode(String.self, forKey: .salt), iterations: try row.decode(Int.self, forKey: .iterations),
            hash: try row.decode(String.self, forKey: .hash),
            externalIdentities: try row.decode([String].self, forKey: .externalIdentities))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.userID, forKey: .userID)
        try row.encode(value.email, forKey: .email)
        try row.encode(value.salt, forKey: .salt)
        try row.encode(value.iterations, forKey: .iterations)
        try row.encode(value.hash, forKey: .hash)
        try row.encode(value.externalIdentities, forKey: .externalIdentities)
    }
}

/// A persisted ``SessionRecord`` row.
package struct PersistedSession: PersistedValue {
    package var value: SessionRecord

    package init(_ value: SessionRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case tokenHash, userID, createdAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = SessionRecord(
            tokenHash: try row.decode(String.self, forKey: .tokenHash), userID: try row.decodeID(forKey: .userID),
            createdAt: try row.decodeDate(forKey: .createdAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encode(value.tokenHash, forKey: .tokenHash)
        try row.encodeID(value.userID, forKey: .userID)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
    }
}

/// A persisted ``DeviceRecord`` row: `{"device": {"platform", "token"}, "registeredAt", "userID"}`.
package struct PersistedDevice: PersistedValue {
    package var value: DeviceRecord

    package init(_ value: DeviceRecord) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case userID, device, registeredAt
    }

    enum TokenKeys: String, CodingKey {
        case token, platform
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        let device = try row.nestedContainer(keyedBy: TokenKeys.self, forKey: .device)
        value = DeviceRecord(
            userID: try row.decodeID(forKey: .userID),
            device: DeviceToken(
                token: try device.decode(String.self, forKey: .token),
                platform: try device.decodeName(forKey: .platform, "push platform", PersistedNames.platform)),
            registeredAt: try row.decodeDate(forKey: .registeredAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.userID, forKey: .userID)
        var device = row.nestedContainer(keyedBy: TokenKeys.self, forKey: .device)
        try device.encode(value.device.token, forKey: .token)
        try device.encode(PersistedNames.name(of: value.device.platform), forKey: .platform)
        try row.encodeDate(value.registeredAt, forKey: .registeredAt)
    }
}

/// A persisted ``Attachment`` row (the bytes are a file of their own).
package struct PersistedAttachment: PersistedValue {
    package var value: Attachment

    package init(_ value: Attachment) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case id, ownerID, contentType, byteCount, createdAt
    }

    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        value = Attachment(
            id: try row.decodeID(forKey: .id), ownerID: try row.decodeID(forKey: .ownerID),
            contentType: try row.decode(String.self, forKey: .contentType),
            byteCount: try row.decode(Int.self, forKey: .byteCount), createdAt: try row.decodeDate(forKey: .createdAt))
    }

    package func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encodeID(value.id, forKey: .id)
        try row.encodeID(value.ownerID, forKey: .ownerID)
        try row.encode(value.contentType, forKey: .contentType)
        try row.encode(value.byteCount, forKey: .byteCount)
        try row.encodeDate(value.createdAt, forKey: .createdAt)
    }
}
