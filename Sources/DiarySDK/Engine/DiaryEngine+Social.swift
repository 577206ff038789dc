import Foundation

extension DiaryEngine: SocialRepository {
    @_spi(Engine)
    public func follow(_ userID: User.ID) async throws {
        let now = self.now
        try await write("social.follow", joining: userID) { transaction, actor in
            guard userID != actor.id else {
                throw DiaryError.invalid("userID", .notAllowed, "you cannot follow yourself")
            }
            guard try await AccessPolicy.canSee(user: userID, viewer: actor, in: transaction) else {
                throw DiaryError.notFound("user \(userID)")
            }
            if try await !transaction.contains(.follow(actor.id, userID)) {
                try await transaction.put(.follow(EdgeRecord(from: actor.id, to: userID, createdAt: now)))
            }
        }
    }

    @_spi(Engine)
    public func unfollow(_ userID: User.ID) async throws {
        try await write("social.unfollow", joining: userID) { transaction, actor in
            try await transaction.remove(.follow(actor.id, userID))
        }
    }

    @_spi(Engine)
    public func followers(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await read("social.followers") { db, viewer in
            try await Self.userList(of: userID, viewer: viewer, in: db, page: page) {
                try await db.rows(StorageSchema.followsByFollowed, equalTo: userID).map { ($0.from, $0) }
            }
        }
    }

    @_spi(Engine)
    public func following(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await read("social.following") { db, viewer in
            try await Self.userList(of: userID, viewer: viewer, in: db, page: page) {
                try await db.rows(StorageSchema.followsByFollower, equalTo: userID).map { ($0.to, $0) }
            }
        }
    }

    @_spi(Engine)
    public func relationship(with userID: User.ID) async throws -> Relationship {
        try await read("social.relationship") { db, viewer in
            guard try await db.contains(.user(userID)), try await !db.contains(.block(userID, viewer.id)) else {
                throw DiaryError.notFound("user \(userID)")
            }
            return Relationship(
                isFollowing: try await db.contains(.follow(viewer.id, userID)),
                isFollowedBy: try await db.contains(.follow(userID, viewer.id)),
                isBlocking: try await db.contains(.block(viewer.id, userID)))
        }
    }

    @_spi(Engine)
    public func block(_ userID: User.ID) async throws {
        let now = self.now
        try await write("social.block", joining: userID) { transaction, actor in
            guard userID != actor.id else {
                throw DiaryError.invalid("userID", .notAllowed, "you cannot block yourself")
            }
            guard try await transaction.contains(.user(userID)) else { throw DiaryError.notFound("user \(userID)") }
            try await Self.addBlock(of: userID, by: actor.id, at: now, in: transaction)
        }
    }

    @_spi(Engine)
    public func unblock(_ userID: User.ID) async throws {
        try await write("social.unblock", joining: userID) { transaction, actor in
            try await transaction.remove(.block(actor.id, userID))
        }
    }

    @_spi(Engine)
    public func blockAuthor(of content: AuthoredContent) async throws {
        let now = self.now
        try await write("social.blockAuthor", joining: content) { transaction, actor in
            let author: User.ID
            let isAnonymous: Bool
            switch content {
            case .post(let id):
                guard let post = try await transaction.post(id) else { throw DiaryError.notFound("post \(id)") }
                (author, isAnonymous) = (post.authorID, post.isAnonymous)
                // Content this very block hides may be named again (a retried call): the answer must not change.
                let alreadyHidden = isAnonymous && !AccessPolicy.canSeeAnonymous(by: author, viewer: actor)
                guard alreadyHidden || AccessPolicy.canSee(post, viewer: actor) else {
                    throw DiaryError.notFound("post \(id)")
                }
            case .comment(let id):
                guard let comment = try await transaction.comment(id),
                    try await AccessPolicy.canSee(target: comment.target, viewer: actor, in: transaction)
                else { throw DiaryError.notFound("comment \(id)") }
                (author, isAnonymous) = (comment.authorID, comment.isAnonymous)
                let alreadyHidden = isAnonymous && !AccessPolicy.canSeeAnonymous(by: author, viewer: actor)
                if !alreadyHidden, try await !AccessPolicy.canSee(comment, viewer: actor, in: transaction) {
                    throw DiaryError.notFound("comment \(id)")
                }
            }
            guard author != actor.id else {
                throw DiaryError.invalid("content", .notAllowed, "you cannot block the author of your own content")
            }
            if !isAnonymous {
                try await Self.addBlock(of: author, by: actor.id, at: now, in: transaction)
            } else if try await !transaction.contains(.anonymousBlock(actor.id, author)) {
                try await transaction.put(.anonymousBlock(EdgeRecord(from: actor.id, to: author, createdAt: now)))
            }
        }
    }

    @_spi(Engine)
    public func unblockAnonymousAuthors() async throws -> Int {
        try await write("social.unblockAnonymousAuthors", joining: "all") { transaction, actor in
            let hidden = try await transaction.rows(StorageSchema.anonymousBlocksByBlocker, equalTo: actor.id).map(\.to)
            for author in hidden { try await transaction.remove(.anonymousBlock(actor.id, author)) }
            return hidden.count
        }
    }

    @_spi(Engine)
    public func blockedUsers(page: PageRequest) async throws -> Page<User> {
        try await read("social.blockedUsers") { db, viewer in
            var edges: [(EdgeRecord, User)] = []
            for edge in try await db.rows(StorageSchema.blocksByBlocker, equalTo: viewer.id) {
                if let user = try await db.user(edge.to) { edges.append((edge, user.publicProfile)) }
            }
            return try Self.edgePage(edges, page: page)
        }
    }

    @_spi(Engine)
    public func report(_ target: ReportTarget, reason: ReportReason, detail: String) async throws -> Report {
        let detail = try Validation.text(
            detail, field: "detail", maximum: Validation.maximumReportDetailLength, allowEmpty: reason != .other)
        let now = self.now
        let id: Report.ID = newID()
        return try await write("social.report", joining: target, reason, detail) { transaction, actor in
            // Content is reportable exactly when the reporter may read it (someone else's, visible to them), so a
            // report answers like a read: an invisible target is not found, whatever makes it invisible.
            var reportable = false
            switch target {
            case .user(let userID):
                if userID != actor.id, try await transaction.contains(.user(userID)) {
                    reportable = try await !transaction.contains(.block(userID, actor.id))
                }
            case .post(let postID):
                if let post = try await transaction.post(postID), post.authorID != actor.id {
                    reportable = AccessPolicy.canSee(post, viewer: actor)
                }
            case .comment(let commentID):
                if let comment = try await transaction.comment(commentID), comment.authorID != actor.id {
                    reportable = try await AccessPolicy.canSee(comment, viewer: actor, in: transaction)
                }
            case .diary(let diaryID):
                if let diary = try await transaction.diary(diaryID), diary.authorID != actor.id,
                    diary.deletedAt == nil
                {
                    reportable = try await AccessPolicy.canSee(diary, viewer: actor, in: transaction)
                }
            }
            guard reportable else { throw DiaryError.notFound("the reported content") }
            let report = Report(
                id: id, reporterID: actor.id, target: target, reason: reason, detail: detail, createdAt: now)
            try await transaction.put(.report(report))
            return report
        }
    }

    // MARK: - Helpers

    /// A user block: the edge, and the end of follows both ways.
    private static func addBlock(
        of userID: User.ID, by actor: User.ID, at now: Date, in transaction: any StorageTransaction
    ) async throws {
        if try await !transaction.contains(.block(actor, userID)) {
            try await transaction.put(.block(EdgeRecord(from: actor, to: userID, createdAt: now)))
        }
        try await transaction.remove(.follow(actor, userID))
        try await transaction.remove(.follow(userID, actor))
    }

    /// A page of the users at the other end of `owner`'s follow edges (`edges` gives each with its edge), leaving
    /// out those the viewer may not see.
    private static func userList(
        of owner: User.ID, viewer: Viewer, in db: any StorageReader, page: PageRequest,
        edges: () async throws -> [(User.ID, EdgeRecord)]
    ) async throws -> Page<User> {
        guard try await AccessPolicy.canSee(user: owner, viewer: viewer, in: db) else {
            throw DiaryError.notFound("user \(owner)")
        }
        var visible: [(EdgeRecord, User)] = []
        for (other, edge) in try await edges() {
            guard try await AccessPolicy.canSee(user: other, viewer: viewer, in: db),
                let user = try await db.user(other)
            else { continue }
            visible.append((edge, AccessPolicy.view(of: user, viewer: viewer.id)))
        }
        return try edgePage(visible, page: page)
    }

    private static func edgePage(_ edges: [(EdgeRecord, User)], page: PageRequest) throws -> Page<User> {
        var users: [SortKey: User] = [:]
        for (edge, user) in edges { users[SortKey(edge.createdAt, user.id.rawValue)] = user }
        return try Paginator.page(keys: users.keys.sorted(), descending: true, request: page) { users[$0] }
    }
}

extension DiaryEngine: NotificationRepository {
    @_spi(Engine)
    public func notifications(page: PageRequest) async throws -> Page<DiaryNotification> {
        try await read("notifications.notifications") { db, viewer in
            let records = try await Self.visibleNotifications(for: viewer, in: db)
            let page = try Paginator.page(
                ordered: records, key: { SortKey($0.createdAt, $0.id.rawValue) }, descending: true, request: page)
            return try await Self.mapPage(page) { records in try await Self.views(of: records, in: db) }
        }
    }

    /// Notifications as their recipient sees them, with their actors read in one batched read.
    static func views(of records: [NotificationRecord], in db: any StorageReader) async throws -> [DiaryNotification] {
        let actors = try await AccessPolicy.summaries(of: Set(records.compactMap(\.actorID)), in: db)
        return records.map { record in
            DiaryNotification(
                id: record.id, recipientID: record.recipientID, kind: record.kind,
                actor: record.actorID.flatMap { actors[$0] }, bookID: record.bookID, diaryID: record.diaryID,
                postID: record.postID, commentID: record.commentID, createdAt: record.createdAt,
                isRead: record.isRead)
        }
    }

    @_spi(Engine)
    public func unreadCount() async throws -> Int {
        try await read("notifications.unreadCount") { db, viewer in
            try await Self.visibleNotifications(for: viewer, in: db).count { !$0.isRead }
        }
    }

    @_spi(Engine)
    public func markRead(_ id: DiaryNotification.ID) async throws {
        try await write("notifications.markRead", joining: id) { transaction, actor in
            guard var record = try await transaction.notification(id), record.recipientID == actor.id else {
                throw DiaryError.notFound("notification \(id)")
            }
            record.isRead = true
            try await transaction.put(.notification(record))
        }
    }

    @_spi(Engine)
    public func markAllRead() async throws {
        try await write("notifications.markAllRead") { transaction, actor in
            for var record in try await transaction.rows(StorageSchema.notificationsByRecipient, equalTo: actor.id)
            where !record.isRead {
                record.isRead = true
                try await transaction.put(.notification(record))
            }
        }
    }

    private static func visibleNotifications(
        for viewer: Viewer, in db: any StorageReader
    ) async throws -> [NotificationRecord] {
        var visible: [NotificationRecord] = []
        for record in try await db.rows(StorageSchema.notificationsByRecipient, equalTo: viewer.id) {
            if try await AccessPolicy.canSee(record, viewer: viewer, in: db) { visible.append(record) }
        }
        return visible
    }
}
