import Foundation

/// The `type` member that names the kind of a wire value with kinds (``CommentTarget``, ``PostSource``,
/// ``ReportTarget``, ``AuthoredContent``, ``Credentials``, ``PageRequest/Position``): such a value is one JSON object,
/// `{"type": "post", "id": "…"}`, its kind's other members beside `type`.
///
/// Each of those types lists its kinds as a `String` enum and reads the member through ``decode(_:of:from:forKey:)``,
/// so an unknown kind is always the same `DecodingError`, naming the value and the kinds it may be.
package enum WireKind {
    /// Reads the kind named by the `type` member.
    /// - Parameters:
    ///   - kind: The enum of the kinds, by their names on the wire.
    ///   - value: The type being decoded, named in the error.
    ///   - container: The value's object.
    ///   - key: The `type` key.
    /// - Returns: The kind.
    /// - Throws: `DecodingError.keyNotFound` without a `type`, `DecodingError.typeMismatch` when it is not a string,
    ///   and `DecodingError.dataCorrupted` at the `type` member when it names no kind of `value`.
    package static func decode<Kind: RawRepresentable & CaseIterable, Key: CodingKey>(
        _ kind: Kind.Type, of value: Any.Type, from container: KeyedDecodingContainer<Key>, forKey key: Key
    ) throws -> Kind where Kind.RawValue == String {
        let name = try container.decode(String.self, forKey: key)
        guard let kind = Kind(rawValue: name) else {
            let expected = Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "unknown \(value) type \"\(name.prefix(64))\"; expected one of \(expected)")
        }
        return kind
    }
}
