import Foundation

extension DiaryEngine: ChangeFeed {
    /// Changes the signed-in user may see and `filter` admits, after `position`, for as long as the session that
    /// opened the stream lasts: the stream finishes when that session signs out, when the account is deleted, or when
    /// another user signs in on the device (and at once when no one is signed in).
    ///
    /// Each committed transaction from the store's change log is read once more, as this viewer, to decide what of it
    /// they may see and to build the values they see; a transaction the viewer may see nothing of is skipped. When
    /// that read fails, the stream says ``ChangeEvent/reloadRequired(_:)`` rather than skip what it could not check.
    @_spi(Engine)
    public func changes(_ filter: ChangeFilter, after position: ChangePosition?) -> AsyncStream<ChangeEvent> {
        let (stream, continuation) = AsyncStream<ChangeEvent>.makeStream(bufferingPolicy: .unbounded)
        guard let viewer = try? requireUserID() else {
            continuation.finish()
            return stream
        }
        let openedWith = sessionToken
        let task = Task { [self] in
            var last = position
            var hasOpened = false
            following: while !Task.isCancelled {
                var received = false
                for await event in store.committedChanges(after: last) {
                    received = true
                    guard sessionToken == openedWith else { break following }
                    switch event {
                    case .opened(let head):
                        // A stream the store ended early (it could not keep what it owed) is reopened after the last
                        // position: the app saw the stream open once.
                        if !hasOpened { continuation.yield(.opened(head)) }
                        hasOpened = true
                        last = head
                    case .trimmed(let head):
                        continuation.yield(.reloadRequired(head))
                        hasOpened = true
                        last = head
                    case .committed(let at, let mutations):
                        last = at
                        switch await visibleChanges(of: mutations, at: at, to: viewer, filter: filter) {
                        case .changes(let changes):
                            for change in changes { continuation.yield(.changed(change)) }
                        case .accountDeleted:
                            break following
                        case .unreadable:
                            continuation.yield(.reloadRequired(at))
                        }
                    }
                }
                // The store ends a stream when it closes (a new one then ends at once) or when it could not keep what
                // it owed this one (a new one carries on after `last`).
                if !received { break }
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

    private enum VisibleChanges {
        case changes([DiaryChange])
        case accountDeleted
        case unreadable
    }

    /// What of one committed transaction `viewer` may see and `filter` admits, read as they would read it (two tries).
    private func visibleChanges(
        of mutations: [StoreMutation], at position: ChangePosition, to viewer: User.ID, filter: ChangeFilter
    ) async -> VisibleChanges {
        for attempt in 0..<2 {
            do {
                return try await store.read("changes.filter") { db -> VisibleChanges in
                    guard try await db.contains(.user(viewer)) else { return .accountDeleted }
                    let current = try await Viewer.load(viewer, in: db)
                    var changes: [DiaryChange] = []
                    for mutation in mutations {
                        guard try await Self.admits(mutation, filter, batch: mutations, in: db),
                            let change = try await Self.change(for: mutation, at: position, viewer: current, in: db)
                        else { continue }
                        changes.append(change)
                    }
                    return .changes(changes)
                }
            } catch {
                if attempt == 0, !Task.isCancelled { continue }
            }
        }
        return .unreadable
    }

    /// The token of the device's session (`nil` for an engine acting as a fixed user), to tell when it ended.
    private var sessionToken: String? {
        guard case .session(let context) = principal else { return nil }
        return context.session?.accessToken
    }

    /// The change a mutation means for `viewer`, with the value they see, or `nil` when it is none of their business.
    static func change(
        for mutation: StoreMutation, at position: ChangePosition, viewer: Viewer, in db: any StorageReader
    ) async throws -> DiaryChange? {
        guard let record = mutation.after ?? mutation.before else { return nil }
        let kind: DiaryChange.Kind = mutation.before == nil ? .inserted : (mutation.after == nil ? .deleted : .updated)
        func change(_ entity: DiaryChange.Entity, _ id: UUID, _ kind: DiaryChange.Kind, _ value: ChangeValue? = nil) -> DiaryChange {
            DiaryChange(entity: entity, id: id, kind: kind, position: position, value: kind == .deleted ? nil : value)
        }
        switch record {
        case .user(let user):
            if user.id != viewer.id, try await !AccessPolicy.canSee(user: user.id, viewer: viewer, in: db) {
                return nil
            }
            return change(.user, user.id.rawValue, kind, .user(AccessPolicy.view(of: user, viewer: viewer.id)))
        case .diary(let diary):
            var visibleNow = diary.authorID == viewer.id
            if !visibleNow, mutation.after != nil {
                visibleNow = try await AccessPolicy.canSee(diary, viewer: viewer, in: db)
            }
            var visible = visibleNow
            if !visible, case .diary(let old) = mutation.before {
                visible = try await AccessPolicy.canSee(old, viewer: viewer, in: db)
            }
            guard visible else { return nil }
            return change(.diary, diary.id.rawValue, kind, visibleNow ? .diary(diary) : nil)
        case .book(let book):
            let isMember = try await AccessPolicy.isMember(viewer.id, of: book.id, in: db)
            guard isMember || kind == .deleted else { return nil }
            if kind == .deleted && book.ownerID != viewer.id && !isMember {
                return nil
            }
            return change(.book, book.id.rawValue, kind, .book(AccessPolicy.view(of: book, viewer: viewer.id)))
        case .membership(let membership):
            let isMember = try await AccessPolicy.isMember(viewer.id, of: membership.bookID, in: db)
            if membership.userID != viewer.id, !isMember { return nil }
            // The viewer left or was removed: they learn it, but no longer see the book.
            let book = isMember ? try await db.book(membership.bookID) : nil
            return change(.book, membership.bookID.rawValue, .updated, book.map { .book(AccessPolicy.view(of: $0, viewer: viewer.id)) })
        case .post(let post):
            guard post.authorID == viewer.id || AccessPolicy.canSee(post, viewer: viewer) else { return nil }
            guard kind != .deleted, let current = try await db.post(post.id) else {
                return change(.post, post.id.rawValue, kind)
            }
            return change(.post, post.id.rawValue, kind, .post(try await AccessPolicy.view(of: current, viewer: viewer, in: db)))
        case .like(let like):
            guard let post = try await db.post(like.postID), AccessPolicy.canSee(post, viewer: viewer) else {
                return nil
            }
            return change(.post, like.postID.rawValue, .updated, .post(try await AccessPolicy.view(of: post, viewer: viewer, in: db)))
        case .comment(let comment):
            if comment.authorID != viewer.id, try await !AccessPolicy.canSee(comment, viewer: viewer, in: db) {
                return nil
            }
            guard kind != .deleted, let current = try await db.comment(comment.id) else {
                return change(.comment, comment.id.rawValue, kind)
            }
            return change(.comment, comment.id.rawValue, kind, .comment(try await AccessPolicy.view(of: current, viewer: viewer, in: db)))
        case .follow(let edge), .block(let edge):
            if edge.from == viewer.id { return change(.relationship, edge.to.rawValue, kind) }
            if edge.to == viewer.id, case .follow = record {
                return change(.relationship, edge.from.rawValue, kind)
            }
            return nil
        case .notification(let notification):
            guard notification.recipientID == viewer.id else { return nil }
            if kind != .deleted, try await !AccessPolicy.canSee(notification, viewer: viewer, in: db) { return nil }
            let view = kind == .deleted ? nil : try await Self.views(of: [notification], in: db).first
            return change(.notification, notification.id.rawValue, kind, view.map { .notification($0) })
        case .blog(let blog):
            guard blog.ownerID == viewer.id else { return nil }
            return change(.blog, blog.id.rawValue, kind, .blog(blog))
        case .anonymousBlock:
            // Its other end is the anonymous author, whom no change may name.
            return nil
        case .credential, .session, .device, .report, .attachment:
            return nil
        }
    }

    /// Whether `filter` admits a mutation (before the rules decide whether the viewer may see it). `batch` is the
    /// whole transaction, for a comment whose entry the same transaction deleted.
    static func admits(
        _ mutation: StoreMutation, _ filter: ChangeFilter, batch: [StoreMutation], in db: any StorageReader
    ) async throws -> Bool {
        guard let record = mutation.after ?? mutation.before else { return false }
        switch filter.scope {
        case .everything:
            return true
        case .entities(let entities):
            guard let entity = entity(of: record) else { return false }
            return entities.contains(entity)
        case .book(let bookID):
            switch record {
            case .book(let book): return book.id == bookID
            case .membership(let membership): return membership.bookID == bookID
            case .diary:
                for case .diary(let diary)? in [mutation.before, mutation.after] where diary.bookID == bookID {
                    return true
                }
                return false
            case .comment(let comment):
                guard case .diary(let diaryID) = comment.target else { return false }
                var diary = try await db.diary(diaryID)
                if diary == nil {
                    for case .diary(let deleted)? in batch.map(\.before) where deleted.id == diaryID { diary = deleted }
                }
                return diary?.bookID == bookID
            default:
                return false
            }
        case .post(let postID):
            switch record {
            case .post(let post): return post.id == postID
            case .like(let like): return like.postID == postID
            case .comment(let comment): return comment.target == .post(postID)
            default: return false
            }
        case .entry(let diaryID):
            switch record {
            case .diary(let diary): return diary.id == diaryID
            case .comment(let comment): return comment.target == .diary(diaryID)
            default: return false
            }
        }
    }

    /// The kind of change a row's mutation is delivered as, if any.
    private static func entity(of record: StoreRecord) -> DiaryChange.Entity? {
        switch record {
        case .user: .user
        case .diary: .diary
        case .book, .membership: .book
        case .post, .like: .post
        case .comment: .comment
        case .follow, .block: .relationship
        case .notification: .notification
        case .blog: .blog
        case .anonymousBlock, .credential, .session, .device, .report, .attachment: nil
        }
    }
}
