import Foundation

/// A persisted ``ReportTarget``: `{"type": "user" | "post" | "comment" | "diary", "id": "…"}`.
package struct PersistedReportTarget: PersistedValue {
    package var value: ReportTarget

    package init(_ value: ReportTarget) {
        self.value = value
    }

    package init(from decoder: any Decoder) throws {
        let (kind, fields) = try PersistedKindedValue.open(decoder)
        let id = PersistedKindedValue.idKey(decoder)
        switch kind {
        case "user": value = .user(try fields.decodeID(forKey: id))
        case "post": value = .post(try fields.decodeID(forKey: id))
        case "comment": value = .comment(try fields.decodeID(forKey: id))
        case "diary": value = .diary(try fields.decodeID(forKey: id))
        default: throw PersistedKindedValue.unknown(kind, "report target", decoder)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch value {
        case .user(let id): try PersistedKindedValue.encode(kind: "user", id: id, to: encoder)
        case .post(let id): try PersistedKindedValue.encode(kind: "post", id: id, to: encoder)
        case .comment(let id): try PersistedKindedValue.encode(kind: "comment", id: id, to: encoder)
        case .diary(let id): try PersistedKindedValue.encode(kind: "diary", id: id, to: encoder)
        }
    }
}
