import Foundation

/// A typed identifier: `User.ID`, `Post.ID` and the like are all `EntityID`s with a different tag,
/// so one kind of id can never be passed where another is expected.
///
/// On the wire an id is its UUID as a lowercase string: `"8a1c…-…"`.
public struct EntityID<Entity>: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    CustomStringConvertible
{
    /// The UUID behind the id.
    public var rawValue: UUID

    /// Wraps a UUID.
    /// - Parameter rawValue: The UUID.
    public init(rawValue: UUID) {
        self.rawValue = rawValue
    }

    /// Wraps a UUID.
    /// - Parameter uuid: The UUID.
    public init(_ uuid: UUID) {
        self.rawValue = uuid
    }

    /// Parses an id from its string form.
    /// - Parameter string: A UUID string, in either case.
    public init?(_ string: String) {
        guard let uuid = WireText.uuid(string) else { return nil }
        self.rawValue = uuid
    }

    /// The lowercase UUID string, as on the wire.
    public var description: String { WireText.lowercase(rawValue) }

    /// Orders ids by their string form, the tie-breaker of every sorted listing.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        // Byte order is the order of the uppercase strings: hex digits sort as their values.
        withUnsafeBytes(of: lhs.rawValue.uuid) { l in
            withUnsafeBytes(of: rhs.rawValue.uuid) { r in l.lexicographicallyPrecedes(r) }
        }
    }

    /// Decodes the lowercase (or uppercase) UUID string.
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a UUID.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let uuid = WireText.uuid(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(string)' is not a UUID")
        }
        self.rawValue = uuid
    }

    /// Encodes the id as a lowercase UUID string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
