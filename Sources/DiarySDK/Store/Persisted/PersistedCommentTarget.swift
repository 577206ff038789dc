import Foundation

/// A persisted ``CommentTarget``: `{"type": "diary" | "post", "id": "…"}`.
package struct PersistedCommentTarget: PersistedValue {
    package var value: CommentTarget

    package init(_ value: CommentTarget) {
        self.value = value
    }

    package init(from decoder: any Decoder) throws {
        let (kind, fields) = try PersistedKindedValue.open(decoder)
        let id = PersistedKindedValue.idKey(decoder)
        switch kind {
        case "diary": value = .diary(try fields.decodeID(forKey: id))
        case "post": value = .post(try fields.decodeID(forKey: id))
        default: throw PersistedKindedValue.unknown(kind, "comment target", decoder)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch value {
        case .diary(let id): try PersistedKindedValue.encode(kind: "diary", id: id, to: encoder)
        case .post(let id): try PersistedKindedValue.encode(kind: "post", id: id, to: encoder)
        }
    }
}
