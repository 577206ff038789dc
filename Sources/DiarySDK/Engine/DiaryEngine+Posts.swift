import Foundation

extension DiaryEngine: PostRepository {
    @_spi(Engine)
    public func publish(_ draft: PostDraft) async throws -> Post {
        let title = try Validation.text(draft.title, field: "title", maximum: Validation.maximumTitleLength)
        let body = try Validation.text(draft.body, field: "body", maximum: Validation.maximumBodyLength)
        let tags = try Validation.tags(draft.tags)
        try Validation.images(draft.images)
        let now = self.now
        return try await write("posts.publish", joining: draft) { transaction, actor in
            try await Self.checkImages(draft.images, owner: actor.id, in: transaction)
            let id = try await self.claimID(draft.id, in: transaction)
            let record = PostRecord(
                id: id, authorID: actor.id, isAnonymous: draft.isAnonymous, title: title, body: body, tags: tags,
                images: draft.images, source: .original,
                day: LocalDate(now, in: try await self.timeZone(of: actor, in: transaction)), createdAt: now,
                updatedAt: now)
            try await transaction.put(.post(record))
            return try await AccessPolicy.view(ofNew: record, viewer: actor, in: transaction)
        }
    }

    @_spi(Engine)
    public func share(_ diaryID: Diary.ID, isAnonymous: Bool) async throws -> Post {
        let now = self.now
        let id: Post.ID = newID()
        // An anonymous share shows copies of the entry's images: an attachment id the entry also shows would lead
        // whoever can read the entry back to the anonymous post's author.
        let copies = isAnonymous ? try await imageCopies(of: diaryID) : [:]
        return try await write("posts.share", joining: diaryID, isAnonymous) { transaction, actor in
            let diary = try await Self.ownDiary(diaryID, actor: actor, in: transaction)
            let title = diary.title.isEmpty ? "\(diary.day)" : diary.title
            var images = diary.images
            if isAnonymous {
                images = diary.images.compactMap { copies[$0.id] }
                guard images.count == diary.images.count else {
                    throw DiaryError(.conflict, "the images of entry \(diaryID) changed while it was being shared; share it again")
                }
                for image in images {
                    try await transaction.put(.attachment(Attachment(
                        id: image.id, ownerID: actor.id, contentType: image.contentType, byteCount: image.byteCount,
                        createdAt: now)))
                }
            }
            let record = PostRecord(
                id: id, authorID: actor.id, isAnonymous: isAnonymous, title: title, body: diary.body, tags: diary.tags,
                images: images, source: .diary(diaryID), day: diary.day, createdAt: now, updatedAt: now)
            try await transaction.put(.post(record))
            return try await AccessPolicy.view(ofNew: record, viewer: actor, in: transaction)
        }
    }

    /// Stores a copy of each image of one of the signed-in user's entries under a new attachment id, keyed by the
    /// original's id. The rows are written by the caller's transaction; bytes of a transaction that fails are swept
    /// as orphans like those of any upload whose row was never written.
    private func imageCopies(of diaryID: Diary.ID) async throws -> [Attachment.ID: ImageReference] {
        let images = try await read("posts.share") { db, viewer in
            try await Self.ownDiary(diaryID, actor: viewer, in: db).images
        }
        var copies: [Attachment.ID: ImageReference] = [:]
        for image in images {
            let bytes = try await store.blob(for: image.id)
            let copy = ImageReference(id: newID(), contentType: image.contentType, byteCount: bytes.count)
            try await store.saveBlob(bytes, for: copy.id)
            copies[image.id] = copy
        }
        return copies
    }

    @_spi(Engine)
    public func edit(_ id: Post.ID, _ edit: PostEdit) async throws -> Post {
        let title = try edit.title.map { try Validation.text($0, field: "title", maximum: Validation.maximumTitleLength) }
        let body = try edit.body.map { try Validation.text($0, field: "body", maximum: Validation.maximumBodyLength) }
        let tags = try edit.tags.map(Validation.tags)
        let now = self.now
        return try await write("posts.edit", joining: id, edit) { transaction, actor in
            var post = try await Self.ownPost(id, actor: actor, in: transaction)
            if let images = edit.images { try await Self.checkImages(images, owner: actor.id, in: transaction) }
            let oldImages = post.images.map(\.id)
            if let title { post.title = title }
            if let body { post.body = body }
            if let tags { post.tags = tags }
            if let images = edit.images { post.images = images }
            post.updatedAt = now
            try await transaction.put(.post(post))
            try await Self.removeUnreferencedAttachments(oldImages, in: transaction)
            return try await AccessPolicy.view(of: post, viewer: actor, in: transaction)
        }
    }

    @_spi(Engine)
    public func delete(_ id: Post.ID) async throws {
        try await write("posts.delete", joining: id) { transaction, actor in
            _ = try await Self.ownPost(id, actor: actor, in: transaction)
            try await self.deletePost(id, in: transaction)
        }
    }

    @_spi(Engine)
    public func post(_ id: Post.ID) async throws -> Post {
        try await read("posts.post") { db, viewer in
            let post = try await Self.visiblePost(id, viewer: viewer, in: db)
            return try await AccessPolicy.view(of: post, viewer: viewer, in: db)
        }
    }

    @_spi(Engine)
    public func feed(page: PageRequest) async throws -> Page<Post> {
        try await read("posts.feed") { db, viewer in
            // The store leaves out what the viewer may not see: a page reads one page of the listing (and its count
            // for a numbered page).
            let filter = viewer.filter
            return try await Paginator.page(
                page, key: Self.listingKey,
                fetch: { position, limit in
                    try await db.page(
                        StorageSchema.feed, Everything(), descending: true, from: position, limit: limit, where: filter)
                },
                count: { try await db.count(StorageSchema.feed, Everything(), where: filter) },
                views: { try await AccessPolicy.views(of: $0, viewer: viewer, in: db) })
        }
    }

    @_spi(Engine)
    public func posts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await read("posts.posts", prefetching: userID.map { [.user($0)] } ?? []) { db, viewer in
            let author = userID ?? viewer.id
            guard try await AccessPolicy.canSee(user: author, viewer: viewer, in: db) else {
                throw DiaryError.notFound("user \(author)")
            }
            // All of one's own posts; someone else's named posts only, since listing anonymous posts on a profile
            // would name their author.
            let filter = author == viewer.id ? viewer.filter : viewer.namedOnlyFilter
            return try await Paginator.page(
                page, key: Self.listingKey,
                fetch: { position, limit in
                    try await db.page(
                        StorageSchema.postsOfAuthor, author, descending: true, from: position, limit: limit,
                        where: filter)
                },
                count: { try await db.count(StorageSchema.postsOfAuthor, author, where: filter) },
                views: { try await AccessPolicy.views(of: $0, viewer: viewer, in: db) })
        }
    }

    @_spi(Engine)
    public func posts(by userID: User.ID?, on day: LocalDate) async throws -> [Post] {
        try await read("posts.postsOnDay", prefetching: userID.map { [.user($0)] } ?? []) { db, viewer in
            let author = userID ?? viewer.id
            guard try await AccessPolicy.canSee(user: author, viewer: viewer, in: db) else {
                throw DiaryError.notFound("user \(author)")
            }
            // The month's posts from the calendar's index, then the day's: as the calendar counts them.
            var posts: [PostRecord] = []
            try await db.forEachRow(StorageSchema.postsByAuthorMonth, equalTo: AuthorMonth(authorID: author, month: day.yearMonth)) {
                post in
                if post.day == day, Self.countsForCalendar(post, viewer: viewer) { posts.append(post) }
            }
            posts.sort { Self.listingKey($0) > Self.listingKey($1) }
            return try await AccessPolicy.views(of: posts, viewer: viewer, in: db)
        }
    }

    @_spi(Engine)
    public func likers(of id: Post.ID, page: PageRequest) async throws -> Page<User> {
        try await read("posts.likers") { db, viewer in
            let post = try await Self.visiblePost(id, viewer: viewer, in: db)
            var likers: [SortKey: User.ID] = [:]
            for like in try await db.rows(StorageSchema.likesByPost, equalTo: id) {
                // An anonymous post's author among its likers would name them.
                if post.isAnonymous, like.userID == post.authorID, viewer.id != post.authorID { continue }
                guard like.userID == viewer.id || !viewer.blockedEitherWay.contains(like.userID) else { continue }
                likers[SortKey(like.createdAt, like.userID.rawValue)] = like.userID
            }
            let users = try await db.records(likers.values.map { RecordKey.user($0) })
            return try Paginator.page(keys: likers.keys.sorted(), descending: true, request: page) { key in
                guard let liker = likers[key], case .user(let user)? = users[.user(liker)] else { return nil }
                return AccessPolicy.view(of: user, viewer: viewer.id)
            }
        }
    }

    @_spi(Engine)
    public func search(_ search: PostSearch, page: PageRequest) async throws -> Page<Post> {
        let words = SearchText.words(of: search.text)
        let tags = try Validation.tags(search.tags).map { $0.lowercased() }
        guard !words.isEmpty || !tags.isEmpty else {
            throw DiaryError.invalid("text", .blank, "a search needs words or tags")
        }
        let query = PostTextQuery(words: words, tags: tags)
        return try await read("posts.search") { db, viewer in
            let filter = viewer.filter
            return try await Paginator.page(
                page, key: Self.listingKey,
                fetch: { position, limit in
                    try await db.searchPosts(query, from: position, limit: limit, where: filter)
                },
                count: { try await db.countPosts(matching: query, where: filter) },
                views: { try await AccessPolicy.views(of: $0, viewer: viewer, in: db) })
        }
    }

    @_spi(Engine)
    public func like(_ id: Post.ID) async throws -> Post {
        let now = self.now
        return try await write("posts.like", joining: id) { transaction, actor in
            let post = try await Self.visiblePost(id, viewer: actor, in: transaction)
            if try await !transaction.contains(.like(actor.id, id)) {
                try await transaction.put(.like(LikeRecord(userID: actor.id, postID: id, createdAt: now)))
            }
            return try await AccessPolicy.view(of: post, viewer: actor, in: transaction)
        }
    }

    @_spi(Engine)
    public func unlike(_ id: Post.ID) async throws -> Post {
        try await write("posts.unlike", joining: id) { transaction, actor in
            let post = try await Self.visiblePost(id, viewer: actor, in: transaction)
            try await transaction.remove(.like(actor.id, id))
            return try await AccessPolicy.view(of: post, viewer: actor, in: transaction)
        }
    }

    @_spi(Engine)
    public func likedPosts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await read("posts.likedPosts") { db, viewer in
            let liker = userID ?? viewer.id
            guard try await AccessPolicy.canSee(user: liker, viewer: viewer, in: db) else {
                throw DiaryError.notFound("user \(liker)")
            }
            // The user's likes in order, a batch at a time, leaving out posts the viewer may not see.
            let posts = try await Paginator.page(
                page, key: { SortKey($0.createdAt, $0.postID.rawValue) },
                fetch: { position, limit in
                    try await db.page(
                        StorageSchema.likesOfUser, liker, descending: true, from: position, limit: limit,
                        where: RowFilter.none)
                },
                resolve: { like -> PostRecord? in
                    guard let post = try await db.post(like.postID), AccessPolicy.canSee(post, viewer: viewer) else {
                        return nil
                    }
                    // Someone else's like of their own anonymous post would say who wrote it.
                    if liker != viewer.id && post.isAnonymous && post.authorID == liker { return nil }
                    return post
                })
            return try await Self.mapPage(posts) { try await AccessPolicy.views(of: $0, viewer: viewer, in: db) }
        }
    }

    // MARK: - Helpers

    static func visiblePost(_ id: Post.ID, viewer: Viewer, in db: any StorageReader) async throws -> PostRecord {
        guard let post = try await db.post(id), AccessPolicy.canSee(post, viewer: viewer) else {
            throw DiaryError.notFound("post \(id)")
        }
        return post
    }

    static func ownPost(_ id: Post.ID, actor: Viewer, in db: any StorageReader) async throws -> PostRecord {
        let post = try await visiblePost(id, viewer: actor, in: db)
        guard post.authorID == actor.id else { throw DiaryError.forbidden("only the author may change post \(id)") }
        return post
    }

    /// A post's position in the post listings (``StorageSchema/feed``, ``StorageSchema/postsOfAuthor``) and in
    /// search results.
    private static func listingKey(_ post: PostRecord) -> SortKey {
        SortKey(post.createdAt, post.id.rawValue)
    }

    /// The same page with its items transformed together, one item per row in the same order: a listing is paged over
    /// its rows first, so only the rows on the page are turned into what the caller sees, and what they show beside
    /// themselves is read once for the page.
    static func mapPage<Row: Sendable, Item: Sendable>(
        _ page: Page<Row>, _ transform: ([Row]) async throws -> [Item]
    ) async throws -> Page<Item> {
        let items = try await transform(page.items)
        guard items.count == page.items.count else {
            throw DiaryError(.server, "a page of \(page.items.count) rows was shown as \(items.count) items")
        }
        return Page(
            items: items, nextCursor: page.nextCursor, pageNumber: page.pageNumber, totalPages: page.totalPages,
            isLastPage: page.isLastPage, size: page.size)
    }
}
