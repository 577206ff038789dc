import Foundation

// The scalar values of persisted rows, written as strings by the rows themselves rather than through the public
// types' `Codable`: ids as lowercase UUIDs, instants as RFC 3339 UTC with six fractional digits, days as
// `yyyy-MM-dd`.

extension KeyedEncodingContainer {
    mutating func encodeID<Entity>(_ id: EntityID<Entity>, forKey key: Key) throws {
        try encode(WireText.lowercase(id.rawValue), forKey: key)
    }

    mutating func encodeIDIfPresent<Entity>(_ id: EntityID<Entity>?, forKey key: Key) throws {
        if let id { try encodeID(id, forKey: key) }
    }

    mutating func encodeDate(_ date: Date, forKey key: Key) throws {
        try encode(WireDate.string(from: date), forKey: key)
    }

    mutating func encodeDateIfPresent(_ date: Date?, forKey key: Key) throws {
        if let date { try encodeDate(date, forKey: key) }
    }

    mutating func encodeDay(_ day: LocalDate, forKey key: Key) throws {
        try encode(day.description, forKey: key)
    }

    mutating func encodeURL(_ url: URL, forKey key: Key) throws {
        try encode(url.absoluteString, forKey: key)
    }

    mutating func encodeURLIfPresent(_ url: URL?, forKey key: Key) throws {
        if let url { try encodeURL(url, forKey: key) }
    }

    mutating func encodeMoodIfPresent(_ mood: Mood?, forKey key: Key) throws {
        try encodeIfPresent(mood?.rawValue, forKey: key)
    }
}

extension KeyedDecodingContainer {
    func decodeID<Entity>(_ type: EntityID<Entity>.Type = EntityID<Entity>.self, forKey key: Key) throws -> EntityID<Entity> {
        let string = try decode(String.self, forKey: key)
        guard let uuid = WireText.uuid(string) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "'\(string)' is not a UUID")
        }
        return EntityID(uuid)
    }

    func decodeIDIfPresent<Entity>(
        _ type: EntityID<Entity>.Type = EntityID<Entity>.self, forKey key: Key
    ) throws -> EntityID<Entity>? {
        try contains(key) && !decodeNil(forKey: key) ? decodeID(type, forKey: key) : nil
    }

    func decodeDate(forKey key: Key) throws -> Date {
        let string = try decode(String.self, forKey: key)
        guard let date = WireDate.date(from: string) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "'\(string)' is not an RFC 3339 date")
        }
        return date
    }

    func decodeDateIfPresent(forKey key: Key) throws -> Date? {
        try contains(key) && !decodeNil(forKey: key) ? decodeDate(forKey: key) : nil
    }

    func decodeDay(forKey key: Key) throws -> LocalDate {
        let string = try decode(String.self, forKey: key)
        guard let day = LocalDate(string) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "'\(string)' is not yyyy-MM-dd")
        }
        return day
    }

    func decodeURL(forKey key: Key) throws -> URL {
        let string = try decode(String.self, forKey: key)
        guard let url = URL(string: string) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "'\(string)' is not a URL")
        }
        return url
    }

    func decodeURLIfPresent(forKey key: Key) throws -> URL? {
        try contains(key) && !decodeNil(forKey: key) ? decodeURL(forKey: key) : nil
    }

    func decodeMoodIfPresent(forKey key: Key) throws -> Mood? {
        try decodeIfPresent(String.self, forKey: key).map(Mood.init(rawValue:))
    }

    /// A value written by the persisted type `Row`, unwrapped.
    func decodeRow<Row: PersistedValue>(_ type: Row.Type, forKey key: Key) throws -> Row.Value {
        try decode(Row.self, forKey: key).value
    }

    func decodeRowIfPresent<Row: PersistedValue>(_ type: Row.Type, forKey key: Key) throws -> Row.Value? {
        try decodeIfPresent(Row.self, forKey: key)?.value
    }
}

/// A persisted form of an in-memory value: it codes the value with its own explicit keys.
package protocol PersistedValue: Codable, Sendable {
    associatedtype Value
    init(_ value: Value)
    var value: Value { get }
}

extension KeyedEncodingContainer {
    mutating func encodeRow<Row: PersistedValue>(_ value: Row.Value, as type: Row.Type, forKey key: Key) throws {
        try encode(Row(value), forKey: key)
    }

    mutating func encodeRowIfPresent<Row: PersistedValue>(_ value: Row.Value?, as type: Row.Type, forKey key: Key) throws {
        if let value { try encode(Row(value), forKey: key) }
    }
}
