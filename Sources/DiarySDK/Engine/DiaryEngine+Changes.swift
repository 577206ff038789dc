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
        // Who and which session, read once: a sign-out between two reads would leave a stream with no session to end.
        let viewer: User.ID
        let openedWith: String?
        switch principal {
        case .fixed(let id):
            viewer = id
            openedWith = nil
        case .session(let context):
            guard let session = context.session else {
                continuation.finish()
                return stream
            }
            viewer = session.userID
            openedWith = session.accessToken
        }
        let resume = ResumePoint(position)
        let task = Task { [self] in
            // The store position of the last transaction handled, and how many of the next one's mutations the
            // caller already has (a position inside a transaction).
            var last = resume.storePosition
            var skipThrough = resume.skipThrough
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
                        if !hasOpened { continuation.yield(.opened(position ?? head)) }
                        hasOpened = true
                        last = head
                    case .trimmed(let head):
                        continuation.yield(.reloadRequired(head))
                        hasOpened = true
                        skipThrough = nil
                        last = head
                    case .committed(let at, let mutations):
                        let previous = last ?? at
                        last = at
                        let skip = skipThrough
                        skipThrough = nil
                        switch await visibleChanges(
                            of: mutations, at: at, after: previous, skippingThrough: skip, to: viewer, filter: filter)
                        {
                        case .changes(let changes):
                            for found in changes { continuation.yield(.changed(found.change)) }
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

    /// Where a stream resumes, read from the position of the last event the caller applied: after a store's
    /// position, or (`<store position>~<n>`) inside the transaction after it, whose mutations up to index `n` the
    /// caller already has. A store never writes `~`, so anything else is a store's position as it is (and one the
    /// store does not know is answered with `trimmed`).
    struct ResumePoint: Equatable {
        var storePosition: ChangePosition?
        var skipThrough: Int?

        init(_ position: ChangePosition?) {
            storePosition = position
            guard let text = position?.rawValue, let tilde = text.firstIndex(of: "~"),
                text.lastIndex(of: "~") == tilde, let index = Int(text[text.index(after: tilde)...]), index >= 0,
                let before = ChangePosition(String(text[..<tilde]))
            else { return }
            storePosition = before
            skipThrough = index
        }

        /// The position of the change made by mutation `index` of the transaction after `previous`.
        static func position(after previous: ChangePosition, mutation index: Int) -> ChangePosition {
            ChangePosition(validated: "\(previous.rawValue)~\(index)")
        }
    }

    /// A change with the index of the mutation it comes from in its transaction.
    struct IndexedChange: Sendable {
        var index: Int
        var change: DiaryChange
    }

    enum VisibleChanges: Sendable {
        case changes([IndexedChange])
        case accountDeleted
        case unreadable
    }

    /// What of one committed transaction `viewer` may see and `filter` admits, read as they would read it: first
    /// together with every other stream of this process waiting on the same transaction (``ChangeEvaluationBatch``),
    /// then, if that read failed, alone (two tries in all). Its last change has the transaction's position; the ones
    /// before it, the position inside the transaction (``ResumePoint``), so a stream resumed after any of them carries
    /// on with the next. Mutations up to `skippingThrough` were delivered before.
    private func visibleChanges(
        of mutations: [StoreMutation], at position: ChangePosition, after previous: ChangePosition,
        skippingThrough skip: Int?, to viewer: User.ID, filter: ChangeFilter
    ) async -> VisibleChanges {
        var outcome = await ChangeEvaluationBatch.evaluate(mutations, at: position, in: store, viewer: viewer, filter: filter)
        if outcome == nil, !Task.isCancelled {
            do {
                outcome = try await store.read("changes.filter") { db -> VisibleChanges in
                    guard let current = try await Viewer.load(signedIn: viewer, in: db) else { return .accountDeleted }
                    return .changes(
                        try await Self.visibleChanges(of: mutations, at: position, to: current, filter: filter, in: db))
                }
            } catch {
                outcome = .unreadable
            }
        }
        guard case .changes(let all)? = outcome else { return outcome ?? .unreadable }
        var found = all.filter { $0.index > (skip ?? -1) }
        for slot in found.indices.dropLast() {
            found[slot].change.position = ResumePoint.position(after: previous, mutation: found[slot].index)
        }
        return .changes(found)
    }

    /// The changes of one committed transaction that `viewer` may see and `filter` admits, each with the index of its
    /// mutation, all at the transaction's position.
    static func visibleChanges(
        of mutations: [StoreMutation], at position: ChangePosition, to viewer: Viewer, filter: ChangeFilter,
        in db: any StorageReader
    ) async throws -> [IndexedChange] {
        var changes: [IndexedChange] = []
        for (index, mutation) in mutations.enumerated() {
            guard try await admits(mutation, filter, batch: mutations, in: db),
                let change = try await change(for: mutation, at: position, viewer: viewer, in: db)
            else { continue }
            changes.append(IndexedChange(index: index, change: change))
        }
        return changes
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
            // The profile as it is now (a replayed change must not show an older one).
            let now = kind == .deleted ? nil : try await db.user(user.id)
            return change(.user, user.id.rawValue, kind, now.map { .user(AccessPolicy.view(of: $0, viewer: viewer.id)) })
        case .diary(let diary):
            var visible = diary.authorID == viewer.id
            if !visible, case .diary(let new) = mutation.after {
                visible = try await AccessPolicy.canSee(new, viewer: viewer, in: db)
            }
            if !visible, case .diary(let old) = mutation.before {
                visible = try await AccessPolicy.canSee(old, viewer: viewer, in: db)
            }
            guard visible else { return nil }
            // The value is the entry as it is now, when the viewer may still see it: a replayed change never shows
            // text since edited away, nor an entry since made private.
            var value: ChangeValue?
            if kind != .deleted, let now = try await db.diary(diary.id) {
                var seen = now.authorID == viewer.id
                if !seen { seen = try await AccessPolicy.canSee(now, viewer: viewer, in: db) }
                if seen { value = .diary(now) }
            }
            return change(.diary, diary.id.rawValue, kind, value)
        case .book(let book):
            let isMember = try await AccessPolicy.isMember(viewer.id, of: book.id, in: db)
            guard isMember || kind == .deleted else { return nil }
            if kind == .deleted && book.ownerID != viewer.id && !isMember {
                return nil
            }
            let now = isMember && kind != .deleted ? try await db.book(book.id) : nil
            return change(.book, book.id.rawValue, kind, now.map { .book(AccessPolicy.view(of: $0, viewer: viewer.id)) })
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
            var view: DiaryNotification?
            if kind != .deleted, let now = try await db.notification(notification.id) {
                view = try await Self.views(of: [now], in: db).first
            }
            return change(.notification, notification.id.rawValue, kind, view.map { .notification($0) })
        case .blog(let blog):
            guard blog.ownerID == viewer.id else { return nil }
            let now = kind == .deleted ? nil : try await db.blog(blog.id)
            return change(.blog, blog.id.rawValue, kind, now.map { .blog($0) })
        case .anonymousBlock:
            // Its other end is the anonymous author, whom no change may name.
            return nil
        case .credential, .session, .device, .report, .attachment, .retiredID, .outbox:
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
        case .anonymousBlock, .credential, .session, .device, .report, .attachment, .retiredID, .outbox: nil
        }
    }
}
