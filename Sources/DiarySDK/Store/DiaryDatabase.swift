import Foundation

/// Every row a local backend holds, with the indices the engine's queries need.
///
/// A value type: the in-memory store keeps one, the file store keeps one and journals the ``StoreMutation``s that
/// change it. Rows change only through ``put(_:)`` and ``remove(_:)``, which keep every index in step.
package struct DiaryDatabase: Sendable {
    package struct AuthorMonth: Hashable, Sendable {
        package var authorID: User.ID
        package var month: YearMonth
    }

    package struct AuthorTag: Hashable, Sendable {
        package var authorID: User.ID
        /// Lowercased.
        package var tag: String
    }

    // Users and accounts
    package private(set) var users: [User.ID: User] = [:]
    /// Keyed by ``Validation/nicknameKey(_:)``, so look-alike nicknames collide.
    package private(set) var userIDsByNickname: [String: User.ID] = [:]
    package private(set) var credentials: [User.ID: CredentialRecord] = [:]
    package private(set) var userIDsByEmail: [String: User.ID] = [:]
    package private(set) var userIDsByExternalIdentity: [String: User.ID] = [:]
    package private(set) var sessions: [String: SessionRecord] = [:]
    package private(set) var sessionsByUser: [User.ID: Set<String>] = [:]
    package private(set) var devices: [User.ID: [String: DeviceRecord]] = [:]
    package private(set) var attachments: [Attachment.ID: Attachment] = [:]
    package private(set) var attachmentsByOwner: [User.ID: Set<Attachment.ID>] = [:]

    // Diaries and books
    package private(set) var diaries: [Diary.ID: Diary] = [:]
    package private(set) var diariesByAuthor: [User.ID: Set<Diary.ID>] = [:]
    package private(set) var diariesByAuthorMonth: [AuthorMonth: Set<Diary.ID>] = [:]
    package private(set) var diariesByBook: [DiaryBook.ID: Set<Diary.ID>] = [:]
    /// Each author's entries in listing order (``listingKey(_:)``).
    package private(set) var diaryOrderByAuthor: [User.ID: SortedKeyIndex] = [:]
    /// Each author's entries with a tag, in listing order.
    package private(set) var diaryOrderByAuthorTag: [AuthorTag: SortedKeyIndex] = [:]
    package private(set) var books: [DiaryBook.ID: DiaryBook] = [:]
    package private(set) var bookIDsByInviteCode: [String: DiaryBook.ID] = [:]
    package private(set) var memberships: [DiaryBook.ID: [User.ID: MembershipRecord]] = [:]
    package private(set) var bookIDsByMember: [User.ID: Set<DiaryBook.ID>] = [:]

    // Community
    package private(set) var posts: [Post.ID: PostRecord] = [:]
    /// Every post by creation date.
    package private(set) var postOrder = SortedKeyIndex()
    package private(set) var postsByAuthor: [User.ID: Set<Post.ID>] = [:]
    package private(set) var postsByAuthorMonth: [AuthorMonth: Set<Post.ID>] = [:]
    package private(set) var postsByTag: [String: Set<Post.ID>] = [:]
    package private(set) var postsByImportKey: [String: Post.ID] = [:]
    package private(set) var comments: [Comment.ID: CommentRecord] = [:]
    package private(set) var commentsByTarget: [CommentTarget: Set<Comment.ID>] = [:]
    package private(set) var repliesByParent: [Comment.ID: Set<Comment.ID>] = [:]
    package private(set) var commentsByAuthor: [User.ID: Set<Comment.ID>] = [:]
    package private(set) var likes: [User.ID: [Post.ID: LikeRecord]] = [:]
    package private(set) var likersByPost: [Post.ID: Set<User.ID>] = [:]

    // Relations
    package private(set) var follows: [User.ID: [User.ID: EdgeRecord]] = [:]
    package private(set) var followers: [User.ID: [User.ID: EdgeRecord]] = [:]
    package private(set) var blocks: [User.ID: [User.ID: EdgeRecord]] = [:]
    package private(set) var blockers: [User.ID: Set<User.ID>] = [:]
    /// Viewer → the authors whose anonymous content they hid (by blocking the author of an anonymous post or comment).
    package private(set) var anonymousBlocks: [User.ID: [User.ID: EdgeRecord]] = [:]
    /// Author → the viewers who hid their anonymous content.
    package private(set) var anonymousBlockers: [User.ID: Set<User.ID>] = [:]
    package private(set) var reports: [Report.ID: Report] = [:]
    package private(set) var notifications: [DiaryNotification.ID: NotificationRecord] = [:]
    package private(set) var notificationsByRecipient: [User.ID: Set<DiaryNotification.ID>] = [:]
    package private(set) var blogs: [Blog.ID: Blog] = [:]
    package private(set) var blogsByOwner: [User.ID: Set<Blog.ID>] = [:]

    package init() {}

    /// How many rows of every kind the database holds.
    package var rowCount: Int {
        users.count + credentials.count + sessions.count + devices.values.reduce(0) { $0 + $1.count }
            + attachments.count + diaries.count + books.count + memberships.values.reduce(0) { $0 + $1.count }
            + posts.count + comments.count + likes.values.reduce(0) { $0 + $1.count }
            + follows.values.reduce(0) { $0 + $1.count } + blocks.values.reduce(0) { $0 + $1.count }
            + anonymousBlocks.values.reduce(0) { $0 + $1.count } + reports.count
            + notifications.count + blogs.count
    }

    /// Every row, in a stable order (by kind, then key), for snapshots and inspection.
    package var allRecords: [StoreRecord] {
        var records: [StoreRecord] = []
        records.reserveCapacity(rowCount)
        records += users.values.sorted { $0.id < $1.id }.map(StoreRecord.user)
        records += credentials.values.sorted { $0.userID < $1.userID }.map(StoreRecord.credential)
        records += sessions.values.sorted { $0.tokenHash < $1.tokenHash }.map(StoreRecord.session)
        records += devices.values.flatMap(\.values).sorted { ($0.userID, $0.device.token) < ($1.userID, $1.device.token) }
            .map(StoreRecord.device)
        records += attachments.values.sorted { $0.id < $1.id }.map(StoreRecord.attachment)
        records += books.values.sorted { $0.id < $1.id }.map(StoreRecord.book)
        records += memberships.values.flatMap(\.values).sorted { ($0.bookID, $0.userID) < ($1.bookID, $1.userID) }
            .map(StoreRecord.membership)
        records += diaries.values.sorted { $0.id < $1.id }.map(StoreRecord.diary)
        records += posts.values.sorted { $0.id < $1.id }.map(StoreRecord.post)
        records += comments.values.sorted { $0.id < $1.id }.map(StoreRecord.comment)
        records += likes.values.flatMap(\.values).sorted { ($0.userID, $0.postID) < ($1.userID, $1.postID) }
            .map(StoreRecord.like)
        records += follows.values.flatMap(\.values).sorted { ($0.from, $0.to) < ($1.from, $1.to) }.map(StoreRecord.follow)
        records += blocks.values.flatMap(\.values).sorted { ($0.from, $0.to) < ($1.from, $1.to) }.map(StoreRecord.block)
        records += anonymousBlocks.values.flatMap(\.values).sorted { ($0.from, $0.to) < ($1.from, $1.to) }
            .map(StoreRecord.anonymousBlock)
        records += reports.values.sorted { $0.id < $1.id }.map(StoreRecord.report)
        records += notifications.values.sorted { $0.id < $1.id }.map(StoreRecord.notification)
        records += blogs.values.sorted { $0.id < $1.id }.map(StoreRecord.blog)
        return records
    }

    /// The row with a key, if any.
    package func record(for key: RecordKey) -> StoreRecord? {
        switch key {
        case .user(let id): users[id].map(StoreRecord.user)
        case .credential(let id): credentials[id].map(StoreRecord.credential)
        case .session(let hash): sessions[hash].map(StoreRecord.session)
        case .device(let userID, let token): devices[userID]?[token].map(StoreRecord.device)
        case .diary(let id): diaries[id].map(StoreRecord.diary)
        case .book(let id): books[id].map(StoreRecord.book)
        case .membership(let bookID, let userID): memberships[bookID]?[userID].map(StoreRecord.membership)
        case .comment(let id): comments[id].map(StoreRecord.comment)
        case .post(let id): posts[id].map(StoreRecord.post)
        case .like(let userID, let postID): likes[userID]?[postID].map(StoreRecord.like)
        case .follow(let from, let to): follows[from]?[to].map(StoreRecord.follow)
        case .block(let from, let to): blocks[from]?[to].map(StoreRecord.block)
        case .anonymousBlock(let from, let to): anonymousBlocks[from]?[to].map(StoreRecord.anonymousBlock)
        case .report(let id): reports[id].map(StoreRecord.report)
        case .notification(let id): notifications[id].map(StoreRecord.notification)
        case .blog(let id): blogs[id].map(StoreRecord.blog)
        case .attachment(let id): attachments[id].map(StoreRecord.attachment)
        }
    }

    /// Inserts or replaces a row, keeping the indices in step.
    /// - Returns: The row it replaced.
    @discardableResult
    package mutating func put(_ record: StoreRecord) -> StoreRecord? {
        let old = remove(record.key)
        var deferred: DeferredOrder?
        insert(record, deferring: &deferred)
        return old
    }

    /// Inserts or replaces many rows, as when a snapshot is loaded: the ordered indices take each batch's keys in
    /// one merge instead of one at a time.
    package mutating func put(contentsOf records: some Sequence<StoreRecord>) {
        var deferred: DeferredOrder? = DeferredOrder()
        for record in records {
            if self.record(for: record.key) != nil {
                // A replacement: its old keys may still be waiting in `deferred`, so merge them before removing.
                merge(deferred!)
                deferred = DeferredOrder()
                remove(record.key)
            }
            insert(record, deferring: &deferred)
        }
        merge(deferred!)
    }

    private mutating func merge(_ deferred: DeferredOrder) {
        for (author, keys) in deferred.diariesByAuthor { diaryOrderByAuthor[author, default: .init()].insert(contentsOf: keys) }
        for (authorTag, keys) in deferred.diariesByAuthorTag {
            diaryOrderByAuthorTag[authorTag, default: .init()].insert(contentsOf: keys)
        }
        postOrder.insert(contentsOf: deferred.posts)
    }

    /// Where an entry sits in its author's listings: newest day first; within a day, newest written first (when
    /// read descending).
    package static func listingKey(_ diary: Diary) -> SortKey {
        let dayMicros = Int64(diary.day.daysSince1970) * 86_400_000_000
        let timeOfDay = WireDate.microseconds(diary.createdAt) % 86_400_000_000
        return SortKey(micros: dayMicros + (timeOfDay < 0 ? timeOfDay + 86_400_000_000 : timeOfDay), id: diary.id.rawValue)
    }

    /// Where a post sits in the community feed.
    package static func listingKey(_ post: PostRecord) -> SortKey {
        SortKey(post.createdAt, post.id.rawValue)
    }

    /// Removes a row, keeping the indices in step.
    /// - Returns: The removed row.
    @discardableResult
    package mutating func remove(_ key: RecordKey) -> StoreRecord? {
        guard let old = record(for: key) else { return nil }
        unindex(old)
        return old
    }

    /// Applies a mutation's `after` state (used when replaying a journal).
    package mutating func apply(_ mutation: StoreMutation) {
        if let after = mutation.after {
            put(after)
        } else if let before = mutation.before {
            remove(before.key)
        }
    }
}

// MARK: - Index maintenance

extension DiaryDatabase {
    /// Ordered-index keys collected during ``put(contentsOf:)``, merged in at its end.
    private struct DeferredOrder {
        var diariesByAuthor: [User.ID: [SortKey]] = [:]
        var diariesByAuthorTag: [AuthorTag: [SortKey]] = [:]
        var posts: [SortKey] = []
    }

    private static func importKeys(_ post: PostRecord) -> [String] {
        guard case .blog(let source) = post.source else { return [] }
        var keys: [String] = []
        if let guid = source.guid { keys.append("\(source.blogID)|guid|\(guid)") }
        if let url = source.url { keys.append("\(source.blogID)|link|\(url.absoluteString)") }
        return keys
    }

    private mutating func insert(_ record: StoreRecord, deferring deferred: inout DeferredOrder?) {
        switch record {
        case .user(let user):
            users[user.id] = user
            userIDsByNickname[Validation.nicknameKey(user.nickname)] = user.id
        case .credential(let credential):
            credentials[credential.userID] = credential
            userIDsByEmail[credential.email] = credential.userID
            for identity in credential.externalIdentities { userIDsByExternalIdentity[identity] = credential.userID }
        case .session(let session):
            sessions[session.tokenHash] = session
            sessionsByUser[session.userID, default: []].insert(session.tokenHash)
        case .device(let device):
            devices[device.userID, default: [:]][device.device.token] = device
        case .attachment(let attachment):
            attachments[attachment.id] = attachment
            attachmentsByOwner[attachment.ownerID, default: []].insert(attachment.id)
        case .diary(let diary):
            diaries[diary.id] = diary
            diariesByAuthor[diary.authorID, default: []].insert(diary.id)
            diariesByAuthorMonth[AuthorMonth(authorID: diary.authorID, month: diary.day.yearMonth), default: []]
                .insert(diary.id)
            if let bookID = diary.bookID { diariesByBook[bookID, default: []].insert(diary.id) }
            let key = Self.listingKey(diary)
            let tags = Set(diary.tags.map { AuthorTag(authorID: diary.authorID, tag: $0.lowercased()) })
            if deferred != nil {
                deferred!.diariesByAuthor[diary.authorID, default: []].append(key)
                for tag in tags { deferred!.diariesByAuthorTag[tag, default: []].append(key) }
            } else {
                diaryOrderByAuthor[diary.authorID, default: .init()].insert(key)
                for tag in tags { diaryOrderByAuthorTag[tag, default: .init()].insert(key) }
            }
        case .book(let book):
            books[book.id] = book
            if let code = book.inviteCode { bookIDsByInviteCode[code] = book.id }
        case .membership(let membership):
            memberships[membership.bookID, default: [:]][membership.userID] = membership
            bookIDsByMember[membership.userID, default: []].insert(membership.bookID)
        case .post(let post):
            posts[post.id] = post
            if deferred != nil { deferred!.posts.append(Self.listingKey(post)) } else { postOrder.insert(Self.listingKey(post)) }
            postsByAuthor[post.authorID, default: []].insert(post.id)
            postsByAuthorMonth[AuthorMonth(authorID: post.authorID, month: post.day.yearMonth), default: []]
                .insert(post.id)
            for tag in post.tags { postsByTag[tag.lowercased(), default: []].insert(post.id) }
            for importKey in Self.importKeys(post) { postsByImportKey[importKey] = post.id }
        case .comment(let comment):
            comments[comment.id] = comment
            commentsByTarget[comment.target, default: []].insert(comment.id)
            if let parent = comment.parentID { repliesByParent[parent, default: []].insert(comment.id) }
            commentsByAuthor[comment.authorID, default: []].insert(comment.id)
        case .like(let like):
            likes[like.userID, default: [:]][like.postID] = like
            likersByPost[like.postID, default: []].insert(like.userID)
        case .follow(let edge):
            follows[edge.from, default: [:]][edge.to] = edge
            followers[edge.to, default: [:]][edge.from] = edge
        case .block(let edge):
            blocks[edge.from, default: [:]][edge.to] = edge
            blockers[edge.to, default: []].insert(edge.from)
        case .anonymousBlock(let edge):
            anonymousBlocks[edge.from, default: [:]][edge.to] = edge
            anonymousBlockers[edge.to, default: []].insert(edge.from)
        case .report(let report):
            reports[report.id] = report
        case .notification(let notification):
            notifications[notification.id] = notification
            notificationsByRecipient[notification.recipientID, default: []].insert(notification.id)
        case .blog(let blog):
            blogs[blog.id] = blog
            blogsByOwner[blog.ownerID, default: []].insert(blog.id)
        }
    }

    private mutating func unindex(_ record: StoreRecord) {
        switch record {
        case .user(let user):
            users[user.id] = nil
            if userIDsByNickname[Validation.nicknameKey(user.nickname)] == user.id {
                userIDsByNickname[Validation.nicknameKey(user.nickname)] = nil
            }
        case .credential(let credential):
            credentials[credential.userID] = nil
            userIDsByEmail[credential.email] = nil
            for identity in credential.externalIdentities { userIDsByExternalIdentity[identity] = nil }
        case .session(let session):
            sessions[session.tokenHash] = nil
            Self.remove(session.tokenHash, from: &sessionsByUser, at: session.userID)
        case .device(let device):
            devices[device.userID]?[device.device.token] = nil
            if devices[device.userID]?.isEmpty == true { devices[device.userID] = nil }
        case .attachment(let attachment):
            attachments[attachment.id] = nil
            Self.remove(attachment.id, from: &attachmentsByOwner, at: attachment.ownerID)
        case .diary(let diary):
            diaries[diary.id] = nil
            Self.remove(diary.id, from: &diariesByAuthor, at: diary.authorID)
            Self.remove(
                diary.id, from: &diariesByAuthorMonth, at: AuthorMonth(authorID: diary.authorID, month: diary.day.yearMonth))
            if let bookID = diary.bookID { Self.remove(diary.id, from: &diariesByBook, at: bookID) }
            let key = Self.listingKey(diary)
            Self.remove(key, from: &diaryOrderByAuthor, at: diary.authorID)
            for tag in Set(diary.tags.map { AuthorTag(authorID: diary.authorID, tag: $0.lowercased()) }) {
                Self.remove(key, from: &diaryOrderByAuthorTag, at: tag)
            }
        case .book(let book):
            books[book.id] = nil
            if let code = book.inviteCode, bookIDsByInviteCode[code] == book.id { bookIDsByInviteCode[code] = nil }
        case .membership(let membership):
            memberships[membership.bookID]?[membership.userID] = nil
            if memberships[membership.bookID]?.isEmpty == true { memberships[membership.bookID] = nil }
            Self.remove(membership.bookID, from: &bookIDsByMember, at: membership.userID)
        case .post(let post):
            posts[post.id] = nil
            postOrder.remove(Self.listingKey(post))
            Self.remove(post.id, from: &postsByAuthor, at: post.authorID)
            Self.remove(
                post.id, from: &postsByAuthorMonth, at: AuthorMonth(authorID: post.authorID, month: post.day.yearMonth))
            for tag in post.tags { Self.remove(post.id, from: &postsByTag, at: tag.lowercased()) }
            for importKey in Self.importKeys(post) where postsByImportKey[importKey] == post.id {
                postsByImportKey[importKey] = nil
            }
        case .comment(let comment):
            comments[comment.id] = nil
            Self.remove(comment.id, from: &commentsByTarget, at: comment.target)
            if let parent = comment.parentID { Self.remove(comment.id, from: &repliesByParent, at: parent) }
            Self.remove(comment.id, from: &commentsByAuthor, at: comment.authorID)
        case .like(let like):
            likes[like.userID]?[like.postID] = nil
            if likes[like.userID]?.isEmpty == true { likes[like.userID] = nil }
            Self.remove(like.userID, from: &likersByPost, at: like.postID)
        case .follow(let edge):
            follows[edge.from]?[edge.to] = nil
            if follows[edge.from]?.isEmpty == true { follows[edge.from] = nil }
            followers[edge.to]?[edge.from] = nil
            if followers[edge.to]?.isEmpty == true { followers[edge.to] = nil }
        case .block(let edge):
            blocks[edge.from]?[edge.to] = nil
            if blocks[edge.from]?.isEmpty == true { blocks[edge.from] = nil }
            Self.remove(edge.from, from: &blockers, at: edge.to)
        case .anonymousBlock(let edge):
            anonymousBlocks[edge.from]?[edge.to] = nil
            if anonymousBlocks[edge.from]?.isEmpty == true { anonymousBlocks[edge.from] = nil }
            Self.remove(edge.from, from: &anonymousBlockers, at: edge.to)
        case .report(let report):
            reports[report.id] = nil
        case .notification(let notification):
            notifications[notification.id] = nil
            Self.remove(notification.id, from: &notificationsByRecipient, at: notification.recipientID)
        case .blog(let blog):
            blogs[blog.id] = nil
            Self.remove(blog.id, from: &blogsByOwner, at: blog.ownerID)
        }
    }

    private static func remove<Key: Hashable, Value: Hashable>(
        _ value: Value, from index: inout [Key: Set<Value>], at key: Key
    ) {
        guard index[key] != nil else { return }
        index[key]!.remove(value)
        if index[key]!.isEmpty { index[key] = nil }
    }

    private static func remove<Key: Hashable>(_ value: SortKey, from index: inout [Key: SortedKeyIndex], at key: Key) {
        guard index[key] != nil else { return }
        index[key]!.remove(value)
        if index[key]!.isEmpty { index[key] = nil }
    }
}
