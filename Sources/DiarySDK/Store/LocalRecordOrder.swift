import Foundation

/// The stable order of ``LocalDatabase/allRecords``: by kind (in the order snapshots have always been written),
/// then by key.
package enum LocalRecordOrder {
    /// The kinds, in snapshot order: rows that others refer to come before them; a kind added later comes last.
    package static let kinds: [RecordKind] = {
        let known: [RecordKind] = [
            .user, .credential, .session, .device, .attachment, .book, .membership, .diary, .post, .comment, .like,
            .follow, .block, .anonymousBlock, .report, .notification, .blog,
        ]
        return known + RecordKind.allCases.filter { !known.contains($0) }
    }()

    /// Whether `lhs` sorts before `rhs`; keys of different kinds sort by ``kinds``.
    package static func areInIncreasingOrder(_ lhs: RecordKey, _ rhs: RecordKey) -> Bool {
        switch (lhs, rhs) {
        case (.user(let a), .user(let b)), (.credential(let a), .credential(let b)): return a < b
        case (.session(let a), .session(let b)): return a < b
        case (.device(let a, let x), .device(let b, let y)): return (a, x) < (b, y)
        case (.attachment(let a), .attachment(let b)): return a < b
        case (.book(let a), .book(let b)): return a < b
        case (.membership(let a, let x), .membership(let b, let y)): return (a, x) < (b, y)
        case (.diary(let a), .diary(let b)): return a < b
        case (.post(let a), .post(let b)): return a < b
        case (.comment(let a), .comment(let b)): return a < b
        case (.like(let a, let x), .like(let b, let y)): return (a, x) < (b, y)
        case (.follow(let a, let x), .follow(let b, let y)), (.block(let a, let x), .block(let b, let y)),
            (.anonymousBlock(let a, let x), .anonymousBlock(let b, let y)):
            return (a, x) < (b, y)
        case (.report(let a), .report(let b)): return a < b
        case (.notification(let a), .notification(let b)): return a < b
        case (.blog(let a), .blog(let b)): return a < b
        case (.retiredID(let a), .retiredID(let b)):
            return EntityID<RetiredIDRecord>(a) < EntityID<RetiredIDRecord>(b)
        case (.outbox(let a), .outbox(let b)):
            return EntityID<OutboxRecord>(a) < EntityID<OutboxRecord>(b)
        default: return position[lhs.kind]! < position[rhs.kind]!
        }
    }

    /// Each kind's place in ``kinds``.
    package static let position: [RecordKind: Int] = Dictionary(
        uniqueKeysWithValues: kinds.enumerated().map { ($1, $0) }
    )
}
