import Foundation

extension DiaryEngine: SocialRepository {
    public func follow(_ userID: User.ID) async throws {
        let now = self.now
        try await write("social.follow", joining: userID) { transaction, actor in
            guard userID != actor else { throw DiaryError.invalid("userID", .notAllowed, "you cannot follow yourself") }
            guard AccessPolicy.canSee(user: userID, viewer: actor, in: transaction.database) else {
                throw DiaryError.notFound("user \(userID)")
            }
            if transaction.database.follows[actor]?[userID] == nil {
                transaction.put(.follow(EdgeRecord(from: actor, to: userID, createdAt: now)))
            }
        }
    }

    public func unfollow(_ userID: User.ID) async throws {
        try await write("social.unfollow", joining: userID) { transaction, actor in
            transaction.remove(.follow(actor, userID))
        }
    }

    public func followers(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await read("social.followers") { db, viewer in
            try Self.userList(db.followers[userID], owner: userID, viewer: viewer, in: db, page: page)
        }
    }

    public func following(of userID: User.ID, page: PageRequest) async throws -> Page<User> {
        try await read("social.following") { db, viewer in
            try Self.userList(db.follows[userID], owner: userID, viewer: viewer, in: db, page: page)
        }
    }

    public func relationship(with userID: User.ID) async throws -> Relationship {
        try await read("social.relationship") { db, viewer in
            guard db.users[userID] != nil, db.blocks[userID]?[viewer] == nil else {
                throw DiaryError.notFound("user \(userID)")
            }
            return Relationship(
                isFollowing: db.follows[viewer]?[userID] != nil, isFollowedBy: db.follows[userID]?[viewer] != nil,
                isBlocking: db.blocks[viewer]?[userID] != nil)
        }
    }

    public func block(_ userID: User.ID) async throws {
        let now = self.now
        try await write("social.block", joining: userID) { transaction, actor in
            guard userID != actor else { throw DiaryError.invalid("userID", .notAllowed, "you cannot block yourself") }
            guard transaction.database.users[userID] != nil else { throw DiaryError.notFound("user \(userID)") }
            self.addBlock(of: userID, by: actor, at: now, in: &transaction)
        }
    }

    public func unblock(_ userID: User.ID) async throws {
        try await write("social.unblock", joining: userID) { transaction, actor in
            transaction.remove(.block(actor, userID))
        }
    }

    public func blockAuthor(of content: AuthoredContent) async throws {
        let now = self.now
        try await write("social.blockAuthor", joining: content) { transaction, actor in
            let db = transaction.database
            let author: User.ID
            let isAnonymous: Bool
            switch content {
            case .post(let id):
                guard let post = db.posts[id] else { throw DiaryError.notFound("post \(id)") }
                (author, isAnonymous) = (post.authorID, post.isAnonymous)
                // Content this very block hides may be named again (a retried call): the answer must not change.
                let alreadyHidden = isAnonymous && !AccessPolicy.canSeeAnonymous(by: author, viewer: actor, in: db)
                guard alreadyHidden || AccessPolicy.canSee(post, viewer: actor, in: db) else {
                    throw DiaryError.notFound("post \(id)")
                }
            case .comment(let id):
                guard let comment = db.comments[id], AccessPolicy.canSee(target: comment.target, viewer: actor, in: db)
                else { throw DiaryError.notFound("comment \(id)") }
                (author, isAnonymous) = (comment.authorID, comment.isAnonymous)
                let alreadyHidden = isAnonymous && !AccessPolicy.canSeeAnonymous(by: author, viewer: actor, in: db)
                guard alreadyHidden || AccessPolicy.canSee(comment, viewer: actor, in: db) else {
                    throw DiaryError.notFound("comment \(id)")
                }
            }
            guard author != actor else {
                throw DiaryError.invalid("content", .notAllowed, "you cannot block the author of your own content")
            }
            if !isAnonymous {
                self.addBlock(of: author, by: actor, at: now, in: &transaction)
            } else if db.anonymousBlocks[actor]?[author] == nil {
                transaction.put(.anonymousBlock(EdgeRecord(from: actor, to: author, createdAt: now)))
            }
        }
    }

    public func unblockAnonymousAuthors() async throws -> Int {
        try await write("social.unblockAnonymousAuthors", joining: "all") { transaction, actor in
            let hidden = transaction.database.anonymousBlocks[actor].map { Array($0.keys) } ?? []
            for author in hidden { transaction.remove(.anonymousBlock(actor, author)) }
            return hidden.count
        }
    }

    public func blockedUsers(page: PageRequest) async throws -> Page<User> {
        try await read("social.blockedUsers") { db, viewer in
            let edges = (db.blocks[viewer] ?? [:]).values.compactMap { edge in
                db.users[edge.to].map { (edge, $0.publicProfile) }
            }
            return try Self.edgePage(edges, page: page)
        }
    }

    public func report(_ target: ReportTarget, reason: ReportReason, detail: String) async throws -> Report {
        let detail = try Validation.text(
            detail, field: "detail", maximum: Validation.maximumReportDetailLength, allowEmpty: reason != .other)
        let now = self.now
        let id: Report.ID = newID()
        return try await write("social.report", joining: target, reason, detail) { transaction, actor in
            let db = transaction.database
            // Content is reportable exactly when the reporter may read it (someone else's, visible to them), so a
            // report answers like a read: an invisible target is not found, whatever makes it invisible.
            let reportable: Bool
            switch target {
            case .user(let userID):
                reportable = userID != actor && db.users[userID] != nil && db.blocks[userID]?[actor] == nil
            case .post(let postID):
                reportable = db.posts[postID].map {
                    $0.authorID != actor && AccessPolicy.canSee($0, viewer: actor, in: db)
                } ?? false
            case .comment(let commentID):
                reportable = db.comments[commentID].map {
                    $0.authorID != actor && AccessPolicy.canSee($0, viewer: actor, in: db)
                } ?? false
            case .diary(let diaryID):
                reportable = db.diaries[diaryID].map {
                    $0.authorID != actor && $0.deletedAt == nil && AccessPolicy.canSee($0, viewer: actor, in: db)
                } ?? false
            }
            guard reportable else { throw DiaryError.notFound("the reported content") }
            let report = Report(id: id, reporterID: actor, target: target, reason: reason, detail: detail, createdAt: now)
            transaction.put(.report(report))
            return report
        }
    }

    // MARK: - Helpers

    /// A user block: the edge, and the end of follows both ways.
    private func addBlock(of userID: User.ID, by actor: User.ID, at now: Date, in transaction: inout DiaryTransaction) {
        if transaction.database.blocks[actor]?[userID] == nil {
            transaction.put(.block(EdgeRecord(from: actor, to: userID, createdAt: now)))
        }
        transaction.remove(.follow(actor, userID))
        transaction.remove(.follow(userID, actor))
    }

    private static func userList(
        _ edges: [User.ID: EdgeRecord]?, owner: User.ID, viewer: User.ID, in db: DiaryDatabase, page: PageRequest
    ) throws -> Page<User> {
        guard AccessPolicy.canSee(user: owner, viewer: viewer, in: db) else { throw DiaryError.notFound("user \(owner)") }
        let visible = (edges ?? [:]).compactMap { other, edge -> (EdgeRecord, User)? in
            guard AccessPolicy.canSee(user: other, viewer: viewer, in: db), let user = db.users[other] else { return nil }
            return (edge, AccessPolicy.view(of: user, viewer: viewer))
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
    public func notifications(page: PageRequest) async throws -> Page<DiaryNotification> {
        try await read("notifications.notifications") { db, viewer in
            let records = Self.visibleNotifications(for: viewer, in: db)
            let views = records.map { record in
                DiaryNotification(
                    id: record.id, recipientID: record.recipientID, kind: record.kind,
                    actor: record.actorID.flatMap { AccessPolicy.summary(of: $0, in: db) }, bookID: record.bookID,
                    diaryID: record.diaryID, postID: record.postID, commentID: record.commentID,
                    createdAt: record.createdAt, isRead: record.isRead)
            }
            return try Paginator.page(
                ordered: views, key: { SortKey($0.createdAt, $0.id.rawValue) }, descending: true, request: page)
        }
    }

    public func unreadCount() async throws -> Int {
        try await read("notifications.unreadCount") { db, viewer in
            Self.visibleNotifications(for: viewer, in: db).count { !$0.isRead }
        }
    }

    public func markRead(_ id: DiaryNotification.ID) async throws {
        try await write("notifications.markRead", joining: id) { transaction, actor in
            guard var record = transaction.database.notifications[id], record.recipientID == actor else {
                throw DiaryError.notFound("notification \(id)")
            }
            record.isRead = true
            transaction.put(.notification(record))
        }
    }

    public func markAllRead() async throws {
        try await write("notifications.markAllRead") { transaction, actor in
            for id in transaction.database.notificationsByRecipient[actor] ?? [] {
                guard var record = transaction.database.notifications[id], !record.isRead else { continue }
                record.isRead = true
                transaction.put(.notification(record))
            }
        }
    }

    private static func visibleNotifications(for viewer: User.ID, in db: DiaryDatabase) -> [NotificationRecord] {
        (db.notificationsByRecipient[viewer] ?? []).compactMap { db.notifications[$0] }.filter {
            AccessPolicy.canSee($0, viewer: viewer, in: db)
        }
    }
}
