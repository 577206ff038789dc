import Foundation

/// The two shapes of a persisted value with a kind, such as a comment's target:
/// `{"type": "post", "id": "…"}` (``PersistedLayout/explicit``) and Swift's synthesized enum coding,
/// `{"post": {"_0": "…"}}` (``PersistedLayout/synthesized``, read only).
enum PersistedKindedValue {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }

        init(_ string: String) {
            stringValue = string
        }

        init?(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }

        static let type = AnyKey("type")
        static let id = AnyKey("id")
        static let synthesizedValue = AnyKey("_0")
    }

    /// Reads the kind and gives back the container holding the value's fields: the object itself in the explicit
    /// layout (`id`, …), or the case's nested object in the synthesized one (`_0`).
    static func open(_ decoder: any Decoder) throws -> (kind: String, fields: KeyedDecodingContainer<AnyKey>) {
        let container = try decoder.container(keyedBy: AnyKey.self)
        switch PersistedLayout.of(decoder) {
        case .explicit:
            return (try container.decode(String.self, forKey: .type), container)
        case .synthesized:
            guard container.allKeys.count == 1, let key = container.allKeys.first else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: container.codingPath, debugDescription: "expected exactly one case key"))
            }
            return (key.stringValue, try container.nestedContainer(keyedBy: AnyKey.self, forKey: key))
        }
    }

    /// The field that holds a one-value case's id in the layout `fields` was opened in.
    static func idKey(_ decoder: any Decoder) -> AnyKey {
        PersistedLayout.of(decoder) == .explicit ? .id : .synthesizedValue
    }

    /// An unknown kind.
    static func unknown(_ kind: String, _ what: String, _ decoder: any Decoder) -> DecodingError {
        .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(kind)' is not a kind of \(what)"))
    }

    /// Writes `{"type": kind, "id": id}`.
    static func encode<Entity>(kind: String, id: EntityID<Entity>, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(kind, forKey: .type)
        try container.encodeID(id, forKey: .id)
    }
}
