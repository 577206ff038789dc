import Foundation

/// A place in a store's change log: the position of one committed change, or of the head of the log when a stream
/// opened. Save the position of the last event a screen applied; a stream opened ``ChangeFeed/changes(_:after:)``
/// it later delivers every change after it (or ``ChangeEvent/reloadRequired(_:)`` when it cannot).
///
/// A position is opaque: only the store that gave it can compare it with another. It is a short string of ASCII
/// letters, digits and `.`, `-`, `_`, `:`, `~` (at most 200; a store's own positions at most 128), so it fits an HTTP header and a server-sent event's `id`
/// line, and survives being saved in `UserDefaults` or a file. A store writes the position of each committed
/// transaction without `~`; the engine marks with `~` the changes of a transaction before its last (see
/// ``DiaryChange/position``).
///
/// On the wire: a JSON string.
public struct ChangePosition: Hashable, Sendable, LosslessStringConvertible, Codable {
    /// The position as its store wrote it.
    public let rawValue: String

    /// The longest position any store may write.
    public static let maximumLength = 200

    /// A position read back from text, or `nil` when the text cannot be one (empty, too long, or with characters no
    /// store writes).
    /// - Parameter description: A position's ``rawValue``.
    public init?(_ description: String) {
        guard Self.isValid(description) else { return nil }
        rawValue = description
    }

    /// A position a store writes.
    /// - Precondition: `rawValue` is valid (`init?(_:)` accepts it).
    @_spi(Storage)
    public init(validated rawValue: String) {
        precondition(Self.isValid(rawValue), "not a change position: \(rawValue)")
        self.rawValue = rawValue
    }

    /// The raw value.
    public var description: String { rawValue }

    /// Decodes a JSON string.
    /// - Throws: `DecodingError.dataCorrupted` when the string cannot be a position.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let position = Self(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a change position (1–200 ASCII letters, digits, '.', '-', '_', ':', '~')")
        }
        self = position
    }

    /// Encodes a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    private static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "~"):
                true
            default:
                false
            }
        }
    }
}
