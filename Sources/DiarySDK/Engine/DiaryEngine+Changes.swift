import Foundation

extension DiaryEngine: ChangeFeed {
    /// Changes the signed-in user may see, for as long as the session that opened the stream lasts: the stream
    /// finishes when that session signs out, when the account is deleted, or when another user signs in on the
    /// device (and at once when no one is signed in).
    @_spi(Engine)
    public func changes() -> AsyncStream<DiaryChange> {
        let committed = store.committedChanges()
        let (stream, continuation) = AsyncStream<DiaryChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        guard let viewer = try? requireUserID() else {
            continuation.finish()
            return stream
        }
        let openedWith = sessionToken
        let task = Task { [self] in
            for await mutations in committed {
                guard sessionToken == openedWith else { break }
                let visible: [DiaryChange]?
                do {
                    visible = try await store.read("changes.filter") { db -> [DiaryChange]? in
                        guard try await db.contains(.user(viewer)) else { return nil }  // the account was deleted
                        let current = try await Viewer.load(viewer, in: db)
                        var changes: [DiaryChange] = []
                        for mutation in mutations {
                            if let change = try await Self.change(for: mutation, viewer: current, in: db) {
                                changes.append(change)
                            }
                        }
                        return changes
                    }
                } catch {
                    continue
                }
                guard let changes = visible else { break }
                for change in changes { continuation.yield(change) }
            }
            continuation.finish()
        }
        // The session's end finishes the stream the moment it happens; the check above only covers a session that
        // changed some other way.
        let watchID = UUID()
        let context: SessionContext? = if case .session(let context) = principal { context } else { nil }
        continuation.onTermination = { _ in
            task.cancel()
            context?.stopWatching(watchID)
        }
        if let context, let openedWith {
            context.watch(watchID, accessToken: openedWith) {
                continuation.finish()
                task.cancel()
            }
        }
        return stream
    }

    /// The token of the device's session (`nil` for an engine acting as a fixed user), to tell when it ended.
    private var sessionToken: String? {
        guard case .session(let context) = principal else { return nil }
        return context.session?.accessToken
    }

    /// The change a mutation means for `viewer`, or `nil` when it is none of their business.
    static func change(
        for mutation: StoreMutation, viewer: Viewer, in db: any StorageReader
    ) async throws -> DiaryChange? {
        guard let record = mutation.after ?? mutation.before else { return nil }
        let kind: DiaryChange.Kind = mutation.before == nil ? .inserted : (mutation.after == nil ? .deleted : .updated)
        switch record {
        case .user(let user):
            if user.id != viewer.id, try await !AccessPolicy.canSee(user: user.id, viewer: viewer, in: db) {
                return nil
            }
            return DiaryChange(entity: .user, id: user.id.rawValue, kind: kind)
        case .diary(let diary):
            var visible = diary.authorID == viewer.id
            if !visible, mutation.after != nil {
                visible = try await AccessPolicy.canSee(diary, viewer: viewer, in: db)
            }
            if !visible, case .diary(let old) = mutation.before {
                visible = try await AccessPolicy.canSee(old, viewer: viewer, in: db)
            }
            return visible ? DiaryChange(entity: .diary, id: diary.id.rawValue, kind: kind) : nil
        case .book(let book):
            let isMember = try await AccessPolicy.isMember(viewer.id, of: book.id, in: db)
            guard isMember || kind == .deleted else { return nil }
            if kind == .deleted && book.ownerID != viewer.id && !isMember {
                return nil
            }
            return DiaryChange(entity: .book, id: book.id.rawValue, kind: kind)
        case .membership(let membership):
            if membership.userID != viewer.id,
                try await !AccessPolicy.isMember(viewer.id, of: membership.bookID, in: db)
            {
                return nil
            }
            return DiaryChange(entity: .book, id: membership.bookID.rawValue, kind: .updated)
        case .post(let post):
            guard post.authorID == viewer.id || AccessPolicy.canSee(post, viewer: viewer) else { return nil }
            return DiaryChange(entity: .post, id: post.id.rawValue, kind: kind)
        case .like(let like):
            guard let post = try await db.post(like.postID), AccessPolicy.canSee(post, viewer: viewer) else {
                return nil
            }
            return DiaryChange(entity: .post, id: like.postID.rawValue, kind: .updated)
        case .comment(let comment):
            if comment.authorID != viewer.id, try await !AccessPolicy.canSee(comment, viewer: viewer, in: db) {
                return nil
            }
            return DiaryChange(entity: .comment, id: comment.id.rawValue, kind: kind)
        case .follow(let edge), .block(let edge):
            if edge.from == viewer.id { return DiaryChange(entity: .relationship, id: edge.to.rawValue, kind: kind) }
            if edge.to == viewer.id, case .follow = record {
                return DiaryChange(entity: .relationship, id: edge.from.rawValue, kind: kind)
            }
            return nil
        case .notification(let notification):
            guard notification.recipientID == viewer.id else { return nil }
            return DiaryChange(entity: .notification, id: notification.id.rawValue, kind: kind)
        case .blog(let blog):
            guard blog.ownerID == viewer.id else { return nil }
            return DiaryChange(entity: .blog, id: blog.id.rawValue, kind: kind)
        case .anonymousBlock:
            // Its other end is the anonymous author, whom no change may name.
            return nil
        case .credential, .session, .device, .report, .attachment:
            return nil
        }
    }
}
