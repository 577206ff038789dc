import Foundation

/// Who a request acts as, with what their blocks hide: read once per request, so the visibility rules in
/// ``AccessPolicy`` decide without going back to the store for every row.
package struct Viewer: Sendable {
    /// The user.
    package let id: User.ID
    /// Users with a block either way between them and the viewer.
    package let blockedEitherWay: Set<User.ID>
    /// Authors whose anonymous content the viewer hid by blocking the author of one anonymous post or comment.
    package let anonymouslyBlocked: Set<User.ID>
    /// The viewer's own row, when the request read it (``load(signedIn:prefetching:in:)``), so rules that need it (their time
    /// zone, their summary on what they write) do not read it again.
    package let account: User?
    /// Rows the request read with the viewer's (``load(signedIn:prefetching:in:)``), by key; `nil` for a key with
    /// no row. Rules consult it before reading.
    package let prefetched: [RecordKey: StoreRecord?]

    package init(
        id: User.ID, blockedEitherWay: Set<User.ID>, anonymouslyBlocked: Set<User.ID>, account: User? = nil,
        prefetched: [RecordKey: StoreRecord?] = [:]
    ) {
        self.id = id
        self.blockedEitherWay = blockedEitherWay
        self.anonymouslyBlocked = anonymouslyBlocked
        self.account = account
        self.prefetched = prefetched
    }

    /// Reads a signed-in user's row and blocks, and any rows the request will need (`prefetching`), in one batched
    /// read.
    /// - Returns: The viewer, or `nil` when their account no longer exists.
    /// - Throws: ``DiaryError/Code/storageCorrupted`` when the user table holds another kind of row under their key.
    package static func load(
        signedIn id: User.ID, prefetching keys: [RecordKey] = [], in db: any StorageReader
    ) async throws -> Viewer? {
        var batch = StorageReadBatch()
        let rows = batch.records([.user(id)] + keys)
        let byViewer = batch.rows(StorageSchema.blocksByBlocker, equalToAnyOf: [id])
        let ofViewer = batch.rows(StorageSchema.blocksByBlocked, equalToAnyOf: [id])
        let anonymous = batch.rows(StorageSchema.anonymousBlocksByBlocker, equalToAnyOf: [id])
        let answers = try await db.read(batch)
        let found = try answers[rows]
        guard let row = found[.user(id)] else { return nil }
        guard case .user(let account) = row else {
            throw DiaryError(.storageCorrupted, "the user table holds another kind of row under \(id)")
        }
        return Viewer(
            id: id, blockedEitherWay: Set(try answers[byViewer].map(\.to)).union(try answers[ofViewer].map(\.from)),
            anonymouslyBlocked: Set(try answers[anonymous].map(\.to)), account: account,
            prefetched: Dictionary(keys.map { ($0, found[$0]) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Reads several signed-in users' rows and blocks in one batched read (the change streams of one process that
    /// wait on the same transaction).
    /// - Returns: The viewers by id; an id whose account no longer exists has none.
    /// - Throws: ``DiaryError/Code/storageCorrupted`` when the user table holds another kind of row under one's key.
    package static func load(signedIn ids: [User.ID], in db: any StorageReader) async throws -> [User.ID: Viewer] {
        guard !ids.isEmpty else { return [:] }
        var batch = StorageReadBatch()
        let rows = batch.records(ids.map { .user($0) })
        let byViewer = batch.rows(StorageSchema.blocksByBlocker, equalToAnyOf: ids)
        let ofViewer = batch.rows(StorageSchema.blocksByBlocked, equalToAnyOf: ids)
        let anonymous = batch.rows(StorageSchema.anonymousBlocksByBlocker, equalToAnyOf: ids)
        let answers = try await db.read(batch)
        let found = try answers[rows]
        var blocked: [User.ID: Set<User.ID>] = [:]
        for edge in try answers[byViewer] { blocked[edge.from, default: []].insert(edge.to) }
        for edge in try answers[ofViewer] { blocked[edge.to, default: []].insert(edge.from) }
        var hidden: [User.ID: Set<User.ID>] = [:]
        for edge in try answers[anonymous] { hidden[edge.from, default: []].insert(edge.to) }
        var viewers: [User.ID: Viewer] = [:]
        for id in ids {
            guard let row = found[.user(id)] else { continue }
            guard case .user(let account) = row else {
                throw DiaryError(.storageCorrupted, "the user table holds another kind of row under \(id)")
            }
            viewers[id] = Viewer(
                id: id, blockedEitherWay: blocked[id] ?? [], anonymouslyBlocked: hidden[id] ?? [], account: account)
        }
        return viewers
    }

    /// Reads a viewer's blocks.
    package static func load(_ id: User.ID, in db: any StorageReader) async throws -> Viewer {
        let edges = try await db.rows(
            ofEach: [StorageSchema.blocksByBlocker, StorageSchema.blocksByBlocked, StorageSchema.anonymousBlocksByBlocker],
            equalTo: id)
        guard edges.count == 3 else { throw DiaryError(.server, "a read of 3 indices answered \(edges.count)") }
        return Viewer(
            id: id, blockedEitherWay: Set(edges[0].map(\.to)).union(edges[1].map(\.from)),
            anonymouslyBlocked: Set(edges[2].map(\.to)))
    }

    /// What listings leave out for this viewer: named content across a block, anonymous content they hid.
    package var filter: RowFilter {
        RowFilter(viewer: id, hiddenNamedAuthors: blockedEitherWay, hiddenAnonymousAuthors: anonymouslyBlocked)
    }

    /// ``filter`` without anyone else's anonymous rows: what a user's profile lists.
    package var namedOnlyFilter: RowFilter {
        var filter = self.filter
        filter.includesAnonymous = false
        return filter
    }
}
