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
    /// The viewer's own row, when the request read it (``load(account:in:)``), so rules that need it (their time
    /// zone, their summary on what they write) do not read it again.
    package let account: User?

    package init(id: User.ID, blockedEitherWay: Set<User.ID>, anonymouslyBlocked: Set<User.ID>, account: User? = nil) {
        self.id = id
        self.blockedEitherWay = blockedEitherWay
        self.anonymouslyBlocked = anonymouslyBlocked
        self.account = account
    }

    /// Reads a signed-in user's blocks, keeping their row.
    package static func load(account: User, in db: any StorageReader) async throws -> Viewer {
        try await load(account.id, account: account, in: db)
    }

    /// Reads a viewer's blocks.
    package static func load(_ id: User.ID, in db: any StorageReader) async throws -> Viewer {
        try await load(id, account: nil, in: db)
    }

    /// Reads a viewer's blocks: three indices, in one batched read.
    private static func load(_ id: User.ID, account: User?, in db: any StorageReader) async throws -> Viewer {
        let edges = try await db.rows(
            ofEach: [StorageSchema.blocksByBlocker, StorageSchema.blocksByBlocked, StorageSchema.anonymousBlocksByBlocker],
            equalTo: id)
        guard edges.count == 3 else { throw DiaryError(.server, "a read of 3 indices answered \(edges.count)") }
        return Viewer(
            id: id, blockedEitherWay: Set(edges[0].map(\.to)).union(edges[1].map(\.from)),
            anonymouslyBlocked: Set(edges[2].map(\.to)), account: account)
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
