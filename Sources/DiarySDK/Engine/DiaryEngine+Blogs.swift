import Foundation

extension DiaryEngine: BlogRepository {
    @_spi(Engine)
    public func register(_ draft: BlogDraft) async throws -> Blog {
        let title = try Validation.text(draft.title, field: "title", maximum: Validation.maximumTitleLength)
        try Validation.webURL(draft.siteURL, field: "siteURL")
        try Validation.webURL(draft.feedURL, field: "feedURL")
        let now = self.now
        let id: Blog.ID = newID()
        return try await write("blogs.register", joining: draft) { transaction, actor in
            let mine = try await transaction.rows(StorageSchema.blogsByOwner, equalTo: actor.id)
            guard !mine.contains(where: { $0.feedURL == draft.feedURL }) else {
                throw DiaryError(.conflict, "the feed \(draft.feedURL.absoluteString) is already registered", field: "feedURL")
            }
            let primary = draft.isPrimary || mine.isEmpty
            if primary { try await Self.clearPrimary(mine, in: transaction) }
            let blog = Blog(
                id: id, ownerID: actor.id, title: title, siteURL: draft.siteURL, feedURL: draft.feedURL,
                isPrimary: primary, createdAt: now)
            try await transaction.put(.blog(blog))
            return blog
        }
    }

    @_spi(Engine)
    public func updateBlog(_ id: Blog.ID, _ edit: BlogEdit) async throws -> Blog {
        let title = try edit.title.map { try Validation.text($0, field: "title", maximum: Validation.maximumTitleLength) }
        if let url = edit.siteURL { try Validation.webURL(url, field: "siteURL") }
        if let url = edit.feedURL { try Validation.webURL(url, field: "feedURL") }
        return try await write("blogs.updateBlog", joining: id, edit) { transaction, actor in
            var blog = try await Self.ownBlog(id, actor: actor, in: transaction)
            if let title { blog.title = title }
            if let url = edit.siteURL { blog.siteURL = url }
            if let url = edit.feedURL, url != blog.feedURL {
                blog.feedURL = url
                blog.sync = BlogSyncState()
            }
            try await transaction.put(.blog(blog))
            return blog
        }
    }

    @_spi(Engine)
    public func deleteBlog(_ id: Blog.ID) async throws {
        try await write("blogs.deleteBlog", joining: id) { transaction, actor in
            let blog = try await Self.ownBlog(id, actor: actor, in: transaction)
            try await transaction.remove(.blog(id))
            if blog.isPrimary,
                let next = try await transaction.rows(StorageSchema.blogsByOwner, equalTo: actor.id)
                    .min(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) })
            {
                var promoted = next
                promoted.isPrimary = true
                try await transaction.put(.blog(promoted))
            }
        }
    }

    @_spi(Engine)
    public func setPrimary(_ id: Blog.ID) async throws -> Blog {
        try await write("blogs.setPrimary", joining: id) { transaction, actor in
            var blog = try await Self.ownBlog(id, actor: actor, in: transaction)
            let mine = try await transaction.rows(StorageSchema.blogsByOwner, equalTo: actor.id)
            try await Self.clearPrimary(mine, in: transaction)
            blog.isPrimary = true
            try await transaction.put(.blog(blog))
            return blog
        }
    }

    @_spi(Engine)
    public func blogs(of userID: User.ID?) async throws -> [Blog] {
        try await read("blogs.blogs") { db, viewer in
            let owner = userID ?? viewer.id
            guard try await AccessPolicy.canSee(user: owner, viewer: viewer, in: db) else {
                throw DiaryError.notFound("user \(owner)")
            }
            return try await db.rows(StorageSchema.blogsByOwner, equalTo: owner)
                .map { owner == viewer.id ? $0 : Self.publicView($0) }
                .sorted { ($0.isPrimary ? 0 : 1, $0.createdAt, $0.id) < ($1.isPrimary ? 0 : 1, $1.createdAt, $1.id) }
        }
    }

    @_spi(Engine)
    public func blog(_ id: Blog.ID) async throws -> Blog {
        try await read("blogs.blog") { db, viewer in
            guard let blog = try await db.blog(id),
                try await AccessPolicy.canSee(user: blog.ownerID, viewer: viewer, in: db)
            else {
                throw DiaryError.notFound("blog \(id)")
            }
            return blog.ownerID == viewer.id ? blog : Self.publicView(blog)
        }
    }

    @_spi(Engine)
    public func recordSync(_ id: Blog.ID, _ state: BlogSyncState) async throws -> Blog {
        try await write("blogs.recordSync", joining: id, state) { transaction, actor in
            var blog = try await Self.ownBlog(id, actor: actor, in: transaction)
            blog.sync = state
            try await transaction.put(.blog(blog))
            return blog
        }
    }

    @_spi(Engine)
    public func importItem(_ item: ImportedItem, into id: Blog.ID) async throws -> ImportOutcome {
        let prepared = Self.prepared(item)
        let now = self.now
        let newPostID: Post.ID = newID()
        return try await write("blogs.importItem", joining: item, id) { transaction, actor in
            _ = try await Self.ownBlog(id, actor: actor, in: transaction)
            return try await self.importPrepared(prepared, as: newPostID, into: id, actor: actor, now: now, in: transaction)
        }
    }

    /// Imports a batch in one transaction: every item's outcome, in order, or nothing when the batch fails (a blog
    /// that is not the user's, storage). An item later in the batch sees the posts created before it, so a feed that
    /// repeats an item imports it once.
    @_spi(Engine)
    public func importItems(_ items: [ImportedItem], into id: Blog.ID) async throws -> [ImportItemResult] {
        try ImportedItem.checkBatch(items)
        guard !items.isEmpty else { return [] }
        let prepared = items.map { (Self.prepared($0), newID() as Post.ID) }
        let now = self.now
        let outcomes = try await write("blogs.importItems", joining: items, id) { transaction, actor in
            _ = try await Self.ownBlog(id, actor: actor, in: transaction)
            var outcomes: [ImportOutcome] = []
            for (item, postID) in prepared {
                outcomes.append(try await self.importPrepared(item, as: postID, into: id, actor: actor, now: now, in: transaction))
            }
            return outcomes
        }
        return outcomes.map { ImportItemResult(outcome: $0) }
    }

    /// An item with its title, text and tags trimmed and cut to the limits (an imported post is never refused for
    /// its length), and its date normalised.
    private static func prepared(_ item: ImportedItem) -> ImportedItem {
        let title = String(
            (item.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                ? (item.url?.absoluteString ?? "Untitled") : item.title.trimmingCharacters(in: .whitespacesAndNewlines))
                .prefix(Validation.maximumTitleLength))
        let body = String(item.body.trimmingCharacters(in: .whitespacesAndNewlines).prefix(Validation.maximumBodyLength))
        let tags = Array(
            item.tags.map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix(Validation.maximumTagLength)) }
                .filter { !$0.isEmpty }.prefix(Validation.maximumTags))
        return ImportedItem(
            guid: item.guid, url: item.url, title: title, body: body, tags: tags,
            publishedAt: WireDate.normalized(item.publishedAt))
    }

    /// Creates or updates the post of one prepared item, finding an earlier import by GUID, then by link.
    private func importPrepared(
        _ item: ImportedItem, as newPostID: Post.ID, into id: Blog.ID, actor: Viewer, now: Date,
        in transaction: any StorageTransaction
    ) async throws -> ImportOutcome {
        var existing: PostRecord?
        if let guid = item.guid {
            existing = try await Self.importedPost(StorageSchema.importKey(blog: id, guid: guid), in: transaction)
        }
        if existing == nil, let url = item.url {
            existing = try await Self.importedPost(StorageSchema.importKey(blog: id, link: url), in: transaction)
        }
        let source = PostSource.blog(BlogImport(blogID: id, guid: item.guid, url: item.url))
        let day = LocalDate(item.publishedAt, in: try await timeZone(of: actor, in: transaction))
        if var post = existing {
            guard post.title != item.title || post.body != item.body || post.tags != item.tags || post.source != source
            else {
                return .unchanged
            }
            post.title = item.title
            post.body = item.body
            post.tags = item.tags
            post.source = source
            post.updatedAt = now
            try await transaction.put(.post(post))
            return .updated
        }
        try await transaction.put(
            .post(
                PostRecord(
                    id: newPostID, authorID: actor.id, isAnonymous: false, title: item.title, body: item.body,
                    tags: item.tags, images: [], source: source, day: day, createdAt: item.publishedAt, updatedAt: now)))
        return .created
    }

    // MARK: - Helpers

    private static func ownBlog(_ id: Blog.ID, actor: Viewer, in db: any StorageReader) async throws -> Blog {
        guard let blog = try await db.blog(id), try await AccessPolicy.canSee(user: blog.ownerID, viewer: actor, in: db)
        else {
            throw DiaryError.notFound("blog \(id)")
        }
        guard blog.ownerID == actor.id else { throw DiaryError.forbidden("only the owner may change blog \(id)") }
        return blog
    }

    private static func clearPrimary(_ blogs: [Blog], in transaction: any StorageTransaction) async throws {
        for var blog in blogs where blog.isPrimary {
            blog.isPrimary = false
            try await transaction.put(.blog(blog))
        }
    }

    /// The post imported under a dedupe key (``StorageSchema/importKey(blog:guid:)``), if any. Imports keep one post
    /// per key; should two ever share one, the earliest created is the one updated, so the choice is the same on
    /// every store.
    private static func importedPost(_ key: String, in db: any StorageReader) async throws -> PostRecord? {
        try await db.rows(StorageSchema.postsByImportKey, equalTo: key)
            .min { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Another user's blog: the sync validators are the owner's business.
    private static func publicView(_ blog: Blog) -> Blog {
        var copy = blog
        copy.sync = BlogSyncState(lastSyncedAt: blog.sync.lastSyncedAt)
        return copy
    }
}
