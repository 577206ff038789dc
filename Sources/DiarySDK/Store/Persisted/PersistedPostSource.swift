import Foundation

/// A persisted ``PostSource``: `{"type": "original"}`, `{"type": "diary", "id": "…"}`, or
/// `{"type": "blog", "blogID": "…", "guid": "…", "url": "…"}` (`guid` and `url` when known).
package struct PersistedPostSource: PersistedValue {
    package var value: PostSource

    package init(_ value: PostSource) {
        self.value = value
    }

    enum BlogKeys: String, CodingKey {
        case blogID, guid, url
    }

    package init(from decoder: any Decoder) throws {
        let (kind, fields) = try PersistedKindedValue.open(decoder)
        switch kind {
        case "original":
            value = .original
        case "diary":
            value = .diary(try fields.decodeID(forKey: PersistedKindedValue.idKey(decoder)))
        case "blog":
            // Explicit: the fields sit beside `type`; synthesized: inside `_0`.
            let blog =
                PersistedLayout.of(decoder) == .explicit
                ? try decoder.container(keyedBy: BlogKeys.self)
                : try fields.nestedContainer(keyedBy: BlogKeys.self, forKey: .synthesizedValue)
            value = .blog(
                BlogImport(
                    blogID: try blog.decodeID(forKey: .blogID), guid: try blog.decodeIfPresent(String.self, forKey: .guid),
                    url: try blog.decodeURLIfPresent(forKey: .url)))
        default:
            throw PersistedKindedValue.unknown(kind, "post source", decoder)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch value {
        case .original:
            var container = encoder.container(keyedBy: PersistedKindedValue.AnyKey.self)
            try container.encode("original", forKey: .type)
        case .diary(let id):
            try PersistedKindedValue.encode(kind: "diary", id: id, to: encoder)
        case .blog(let source):
            var container = encoder.container(keyedBy: PersistedKindedValue.AnyKey.self)
            try container.encode("blog", forKey: .type)
            var blog = encoder.container(keyedBy: BlogKeys.self)
            try blog.encodeID(source.blogID, forKey: .blogID)
            try blog.encodeIfPresent(source.guid, forKey: .guid)
            try blog.encodeURLIfPresent(source.url, forKey: .url)
        }
    }
}
