import Foundation

/// A row's key on its own (a journal's delete): `{"kind": {fields}}`, the fields named as in the row,
/// `{"device": {"token": "…", "userID": "…"}}`. The ``PersistedLayout/synthesized`` layout numbered them instead,
/// `{"device": {"_0": "…", "_1": "…"}}`.
extension RecordKey: Codable {
    /// The key's kind and its fields' values, ids as lowercase UUID strings.
    private var parts: (kind: StoreRecord.Kind, values: [String]) {
        func id<Entity>(_ id: EntityID<Entity>) -> String { WireText.lowercase(id.rawValue) }
        return switch self {
        case .user(let user): (.user, [id(user)])
        case .credential(let user): (.credential, [id(user)])
        case .session(let hash): (.session, [hash])
        case .device(let user, let token): (.device, [id(user), token])
        case .diary(let diary): (.diary, [id(diary)])
        case .book(let book): (.book, [id(book)])
        case .membership(let book, let user): (.membership, [id(book), id(user)])
        case .comment(let comment): (.comment, [id(comment)])
        case .post(let post): (.post, [id(post)])
        case .like(let user, let post): (.like, [id(user), id(post)])
        case .follow(let from, let to): (.follow, [id(from), id(to)])
        case .block(let from, let to): (.block, [id(from), id(to)])
        case .anonymousBlock(let from, let to): (.anonymousBlock, [id(from), id(to)])
        case .report(let report): (.report, [id(report)])
        case .notification(let notification): (.notification, [id(notification)])
        case .blog(let blog): (.blog, [id(blog)])
        case .attachment(let attachment): (.attachment, [id(attachment)])
        case .retiredID(let uuid): (.retiredID, [WireText.lowercase(uuid)])
        case .outbox(let uuid): (.outbox, [WireText.lowercase(uuid)])
        }
    }

    /// The names of a kind's key fields, as in its row.
    private static func fieldNames(of kind: StoreRecord.Kind) -> [String] {
        switch kind {
        case .user, .diary, .book, .comment, .post, .report, .notification, .blog, .attachment, .retiredID,
            .outbox: ["id"]
        case .credential: ["userID"]
        case .session: ["tokenHash"]
        case .device: ["userID", "token"]
        case .membership: ["bookID", "userID"]
        case .like: ["userID", "postID"]
        case .follow, .block, .anonymousBlock: ["from", "to"]
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: StoreRecord.Kind.self)
        guard container.allKeys.count == 1, let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a key has exactly one known kind key"))
        }
        let fields = try container.nestedContainer(keyedBy: PersistedKindedValue.AnyKey.self, forKey: kind)
        let explicit = PersistedLayout.of(decoder) == .explicit
        let names = Self.fieldNames(of: kind).enumerated().map { explicit ? $1 : "_\($0)" }
        let values = try names.map { try fields.decode(String.self, forKey: .init($0)) }
        func id<Entity>(_ index: Int) throws -> EntityID<Entity> {
            guard let uuid = WireText.uuid(values[index]) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .init(names[index]), in: fields, debugDescription: "'\(values[index])' is not a UUID")
            }
            return EntityID(uuid)
        }
        self =
            switch kind {
            case .user: .user(try id(0))
            case .credential: .credential(try id(0))
            case .session: .session(values[0])
            case .device: .device(try id(0), values[1])
            case .diary: .diary(try id(0))
            case .book: .book(try id(0))
            case .membership: .membership(try id(0), try id(1))
            case .comment: .comment(try id(0))
            case .post: .post(try id(0))
            case .like: .like(try id(0), try id(1))
            case .follow: .follow(try id(0), try id(1))
            case .block: .block(try id(0), try id(1))
            case .anonymousBlock: .anonymousBlock(try id(0), try id(1))
            case .report: .report(try id(0))
            case .notification: .notification(try id(0))
            case .blog: .blog(try id(0))
            case .attachment: .attachment(try id(0))
            case .retiredID: .retiredID((try id(0) as EntityID<RetiredIDRecord>).rawValue)
            case .outbox: .outbox((try id(0) as EntityID<OutboxRecord>).rawValue)
            }
    }

    public func encode(to encoder: any Encoder) throws {
        let (kind, values) = parts
        var container = encoder.container(keyedBy: StoreRecord.Kind.self)
        var fields = container.nestedContainer(keyedBy: PersistedKindedValue.AnyKey.self, forKey: kind)
        for (name, value) in zip(Self.fieldNames(of: kind), values) {
            try fields.encode(value, forKey: .init(name))
        }
    }
}
