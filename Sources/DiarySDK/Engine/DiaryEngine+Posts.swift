import Foundation

extension DiaryEngine: PostRepository {
    public func publish(_ draft: PostDraft) async throws -> Post {
        let title = try Validation.text(draft.title, field: "title", maximum: Validation.maximumTitleLength)
        let body = try Validation.text(draft.body, field: "body", maximum: Validation.maximumBodyLength)
        let tags = try Validation.tags(draft.tags)
        try Validation.images(draft.images)
        let now = self.now
        let id: Post.ID = newID()
        return try await write("posts.publish", joining: draft) { transaction, actor in
            try Self.checkImages(draft.images, owner: actor, in: transaction.database)
            let record = PostRecord(
                id: id, authorID: actor, isAnonymous: draft.isAnonymous, title: title, body: body, tags: tags,
                images: draft.images, source: .original,
                day: LocalDate(now, in: self.timeZone(of: actor, in: transaction.database)), createdAt: now, updatedAt: now)
            transaction.put(.post(record))
            return AccessPolicy.view(of: record, viewer: actor, in: transaction.database)
        }
    }

    public func share(_ diaryID: Diary.ID, isAnonymous: Bool) async throws -> Post {
        let now = self.now
        let id: Post.ID = newID()
        // An anonymous share shows copies of the entry's images: an attachment id the entry also shows would lead
        // whoever can read the entry back to the anonymous post's author.
        let copies = isAnonymous ? try await imageCopies(of: diaryID) : [:]
        return try await write("posts.share", joining: diaryID, isAnonymous) { transaction, actor in
            let diary = try Self.ownDiary(diaryID, actor: actor, in: transaction.database)
            let title = diary.title.isEmpty ? "\(diary.day)" : diary.title
            var images = diary.images
            if isAnonymous {
                images = diary.images.compactMap { copies[$0.id] }
                guard images.count == diary.images.count else {
                    throw DiaryError(.conflict, "the images of entry \(diaryID) changed while it was being shared; share it again")
                }
                for image in images {
                    transaction.put(.attachment(Attachment(
                        id: image.id, ownerID: actor, contentType: image.contentType, byteCount: image.byteCount,
                        createdAt: now)))
                }
            }
            let record = PostRecord(
                id: id, authorID: actor, isAnonymous: isAnonymous, title: title, body: diary.body, tags: diary.tags,
                images: images, source: .diary(diaryID), day: diary.day, createdAt: now, updatedAt: now)
            transaction.put(.post(record))
            return AccessPolicy.view(of: record, viewer: actor, in: transaction.database)
        }
    }

    /// Stores a copy of each image of one of the signed-in user's entries under a new attachment id, keyed by the
    /// original's id. The rows are written by the caller's transaction; bytes of a transaction that fails are swept
    /// as orphans like those of any upload whose row was never written.
    private func imageCopies(of diaryID: Diary.ID) async throws -> [Attachment.ID: ImageReference] {
        let images = try await read("posts.share") { db, viewer in try Self.ownDiary(diaryID, actor: viewer, in: db).images }
        var copies: [Attachment.ID: ImageReference] = [:]
        for image in images {
            let bytes = try await store.blob(for: image.id)
            let copy = ImageReference(id: newID(), contentType: image.contentType, byteCount: bytes.count)
            try await store.saveBlob(bytes, for: copy.id)
            copies[image.id] = copy
        }
        return copies
    }

    public func edit(_ id: Post.ID, _ edit: PostEdit) async throws -> Post {
        let title = try edit.title.map { try Validation.text($0, field: "title", maximum: Validation.maximumTitleLength) }
        let body = try edit.body.map { try Validation.text($0, field: "body", maximum: Validation.maximumBodyLength) }
        let tags = try edit.tags.map(Validation.tags)
        let now = self.now
        return try await write("posts.edit", joining: id, edit) { transaction, actor in
            var post = try Self.ownPost(id, actor: actor, in: transaction.database)
            if let images = edit.images { try Self.checkImages(images, owner: actor, in: transaction.database) }
            let oldImages = post.images.map(\.id)
            if let title { post.title = title }
            if let body { post.body = body }
            if let tags { post.tags = tags }
            if let images = edit.images { post.images = images }
            post.updatedAt = now
            transaction.put(.post(post))
            Self.removeUnreferencedAttachments(oldImages, in: &transaction)
            return AccessPolicy.view(of: post, viewer: actor, in: transaction.database)
        }
    }

    public func delete(_ id: Post.ID) async throws {
        try await write("posts.delete", joining: id) { transaction, actor in
            _ = try Self.ownPost(id, actor: actor, in: transaction.database)
            self.deletePost(id, in: &transaction)
        }
    }

    public func post(_ id: Post.ID) async throws -> Post {
        try await read("posts.post") { db, viewer in
            AccessPolicy.view(of: try Self.visiblePost(id, viewer: viewer, in: db), viewer: viewer, in: db)
        }
    }

    public func feed(page: PageRequest) async throws -> Page<Post> {
        try await read("posts.feed") { db, viewer in
            try Paginator.page(keys: db.postOrder, descending: true, request: page) { key in
                guard let post = db.posts[Post.ID(key.id)], AccessPolicy.canSee(post, viewer: viewer, in: db) else {
                    return nil
                }
                return AccessPolicy.view(of: post, viewer: viewer, in: db)
            }
        }
    }

    public func posts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await read("posts.posts") { db, viewer in
            let author = userID ?? viewer
            guard AccessPolicy.canSee(user: author, viewer: viewer, in: db) else { throw DiaryError.notFound("user \(author)") }
            let posts = (db.postsByAuthor[author] ?? []).compactMap { db.posts[$0] }
                .filter { author == viewer || !$0.isAnonymous }
            return try Paginator.page(
                ordered: posts.map { AccessPolicy.view(of: $0, viewer: viewer, in: db) },
                key: { SortKey($0.createdAt, $0.id.rawValue) }, descending: true, request: page)
        }
    }

    public func search(_ search: PostSearch, page: PageRequest) async throws -> Page<Post> {
        let words = SearchText.words(of: search.text)
        let tags = try Validation.tags(search.tags).map { $0.lowercased() }
        guard !words.isEmpty || !tags.isEmpty else {
            throw DiaryError.invalid("text", .blank, "a search needs words or tags")
        }
        return try await read("posts.search") { db, viewer in
            var tagged: Set<Post.ID>?
            for tag in tags {
                let ids = db.postsByTag[tag] ?? []
                tagged = tagged.map { $0.intersection(ids) } ?? ids
            }
            return try Paginator.page(keys: db.postOrder, descending: true, request: page) { key in
                let id = Post.ID(key.id)
                if let tagged, !tagged.contains(id) { return nil }
                guard let post = db.posts[id], AccessPolicy.canSee(post, viewer: viewer, in: db) else { return nil }
                if !words.isEmpty {
                    let haystack = SearchText.searchable(post)
                    guard words.allSatisfy(haystack.contains) else { return nil }
                }
                return AccessPolicy.view(of: post, viewer: viewer, in: db)
            }
        }
    }

    public func like(_ id: Post.ID) async throws -> Post {
        let now = self.now
        return try await write("posts.like", joining: id) { transaction, actor in
            let post = try Self.visiblePost(id, viewer: actor, in: transaction.database)
            if transaction.database.likes[actor]?[id] == nil {
                transaction.put(.like(LikeRecord(userID: actor, postID: id, createdAt: now)))
            }
            return AccessPolicy.view(of: post, viewer: actor, in: transaction.database)
        }
    }

    public func unlike(_ id: Post.ID) async throws -> Post {
        try await write("posts.unlike", joining: id) { transaction, actor in
            let post = try Self.visiblePost(id, viewer: actor, in: transaction.database)
            transaction.remove(.like(actor, id))
            return AccessPolicy.view(of: post, viewer: actor, in: transaction.database)
        }
    }

    public func likedPosts(by userID: User.ID?, page: PageRequest) async throws -> Page<Post> {
        try await read("posts.likedPosts") { db, viewer in
            let liker = userID ?? viewer
            guard AccessPolicy.canSee(user: liker, viewer: viewer, in: db) else { throw DiaryError.notFound("user \(liker)") }
            var likedAt: [SortKey: Post.ID] = [:]
            for like in (db.likes[liker] ?? [:]).values {
                likedAt[SortKey(like.createdAt, like.postID.rawValue)] = like.postID
            }
            return try Paginator.page(keys: likedAt.keys.sorted(), descending: true, request: page) { key in
                guard let post = db.posts[Post.ID(key.id)], AccessPolicy.canSee(post, viewer: viewer, in: db) else {
                    return nil
                }
                // Someone else's like of their own anonymous post would say who wrote it.
                if liker != viewer && post.isAnonymous && post.authorID == liker { return nil }
                return AccessPolicy.view(of: post, viewer: viewer, in: db)
            }
        }
    }

    // MARK: - Helpers

    static func visiblePost(_ id: Post.ID, viewer: User.ID, in db: DiaryDatabase) throws -> PostRecord {
        guard let post = db.posts[id], AccessPolicy.canSee(post, viewer: viewer, in: db) else {
            throw DiaryError.notFound("post \(id)")
        }
        return post
    }

    static func ownPost(_ id: Post.ID, actor: User.ID, in db: DiaryDatabase) throws -> PostRecord {
        let post = try visiblePost(id, viewer: actor, in: db)
        guard post.authorID == actor else { throw DiaryError.forbidden("only the author may change post \(id)") }
        return post
    }
}
