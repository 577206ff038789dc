@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// Builders for every entity, used inside ``InMemoryBackend/seed(_:)`` to set up a test's world in one step.
///
/// Builders skip the repositories (no notifications, no turn changes) and take their dates from the backend's
/// clock and their ids from its id generator, so seeded worlds are deterministic. Seeded users can sign in with
/// their password (``defaultPassword`` unless given).
public struct Fixtures {
    /// The password seeded users get unless another is given.
    public static let defaultPassword = "password123"

    let environment: DiaryEnvironment
    let iterations: Int
    var records: [StoreRecord] = []
    var blobs: [(Attachment.ID, Data)] = []

    init(environment: DiaryEnvironment, iterations: Int) {
        self.environment = environment
        self.iterations = iterations
    }

    private var now: Date { environment.clock.now() }
    private func id<Entity>() -> EntityID<Entity> { EntityID(environment.ids.next()) }

    /// A user who can sign in with `email` and `password`.
    /// - Parameters:
    ///   - nickname: The nickname.
    ///   - email: The email; `<nickname>@example.com` by default.
    ///   - password: The password.
    ///   - bio: The bio.
    ///   - timeZone: The user's time zone identifier.
    /// - Returns: The user, as its owner sees it.
    @discardableResult
    public mutating func user(
        _ nickname: String, email: String? = nil, password: String = Fixtures.defaultPassword, bio: String = "",
        timeZone: String = "UTC"
    ) -> User {
        let email = (email ?? "\(nickname)@example.com").lowercased()
        let user = User(
            id: id(), nickname: nickname, email: email, bio: bio, createdAt: now,
            settings: UserSettings(timeZoneIdentifier: timeZone))
        let salt = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ nickname.utf8.count) }
        let hash = SHA256.pbkdf2(password: Array(password.utf8), salt: salt, iterations: iterations)
        records.append(.user(user))
        records.append(
            .credential(
                CredentialRecord(
                    userID: user.id, email: email, salt: SHA256.hex(salt), iterations: iterations, hash: SHA256.hex(hash),
                    externalIdentities: [])))
        return user
    }

    /// A diary entry.
    /// - Returns: The entry.
    @discardableResult
    public mutating func diary(
        by author: User, day: LocalDate? = nil, title: String = "", body: String = "Today I learned something.",
        mood: Mood? = nil, tags: [String] = [], visibility: Diary.Visibility? = nil, book: DiaryBook? = nil,
        isHidden: Bool = false, isFavourite: Bool = false
    ) -> Diary {
        let now = self.now
        let diary = Diary(
            id: id(), authorID: author.id, bookID: book?.id,
            day: day ?? LocalDate(now, in: TimeZone(identifier: author.settings?.timeZoneIdentifier ?? "UTC") ?? .gmt),
            title: title, body: body, mood: mood, tags: tags, visibility: visibility ?? (book == nil ? .private : .members),
            isHidden: isHidden, isFavourite: isFavourite, createdAt: now, updatedAt: now)
        records.append(.diary(diary))
        return diary
    }

    /// A book owned by `owner` with `members` joined after, in order; the owner has the turn.
    /// - Returns: The book.
    @discardableResult
    public mutating func book(
        _ title: String, owner: User, members: [User] = [], coverColor: String = "#FFD166", inviteCode: String? = nil
    ) -> DiaryBook {
        let now = self.now
        let book = DiaryBook(
            id: id(), title: title, coverColor: coverColor, ownerID: owner.id, inviteCode: inviteCode,
            currentTurn: owner.id, createdAt: now, updatedAt: now)
        records.append(.book(book))
        records.append(.membership(MembershipRecord(bookID: book.id, userID: owner.id, role: .owner, joinedAt: now)))
        for (offset, member) in members.enumerated() {
            records.append(
                .membership(
                    MembershipRecord(
                        bookID: book.id, userID: member.id, role: .member,
                        joinedAt: now.addingTimeInterval(Double(offset + 1) / 1000))))
        }
        return book
    }

    /// A community post.
    /// - Returns: The post as its author sees it.
    @discardableResult
    public mutating func post(
        by author: User, title: String = "Hello", body: String = "First post", tags: [String] = [],
        isAnonymous: Bool = false, at date: Date? = nil
    ) -> Post {
        let created = WireDate.normalized(date ?? now)
        let record = PostRecord(
            id: id(), authorID: author.id, isAnonymous: isAnonymous, title: title, body: body, tags: tags, images: [],
            source: .original,
            day: LocalDate(created, in: TimeZone(identifier: author.settings?.timeZoneIdentifier ?? "UTC") ?? .gmt),
            createdAt: created, updatedAt: created)
        records.append(.post(record))
        return Post(
            id: record.id, author: AuthorSummary(id: author.id, nickname: author.nickname), isMine: true,
            isAnonymous: isAnonymous, title: title, body: body, tags: tags, images: [], source: .original, day: record.day,
            likeCount: 0, commentCount: 0, isLiked: false, createdAt: created, updatedAt: created)
    }

    /// A comment (or a reply, with `parent`).
    /// - Returns: The comment as its author sees it.
    @discardableResult
    public mutating func comment(
        by author: User, on target: CommentTarget, body: String = "Nice!", parent: Comment? = nil, mood: Mood? = nil,
        isAnonymous: Bool = false
    ) -> Comment {
        let now = self.now
        let record = CommentRecord(
            id: id(), target: target, parentID: parent?.id, authorID: author.id, isAnonymous: isAnonymous, body: body,
            mood: mood, createdAt: now, updatedAt: now)
        records.append(.comment(record))
        return Comment(
            id: record.id, target: target, parentID: parent?.id,
            author: AuthorSummary(id: author.id, nickname: author.nickname), isMine: true, isAnonymous: isAnonymous,
            body: body, mood: mood, createdAt: now, updatedAt: now)
    }

    /// `user` likes `post`.
    public mutating func like(_ post: Post, by user: User) {
        records.append(.like(LikeRecord(userID: user.id, postID: post.id, createdAt: now)))
    }

    /// `follower` follows `followee`.
    public mutating func follow(_ followee: User, by follower: User) {
        records.append(.follow(EdgeRecord(from: follower.id, to: followee.id, createdAt: now)))
    }

    /// `blocker` blocks `blocked`.
    public mutating func block(_ blocked: User, by blocker: User) {
        records.append(.block(EdgeRecord(from: blocker.id, to: blocked.id, createdAt: now)))
    }

    /// A blog registered by `owner`.
    /// - Returns: The blog.
    @discardableResult
    public mutating func blog(
        owner: User, title: String = "My blog", siteURL: URL = URL(string: "https://blog.example.com")!,
        feedURL: URL = URL(string: "https://blog.example.com/rss")!, isPrimary: Bool = true
    ) -> Blog {
        let blog = Blog(
            id: id(), ownerID: owner.id, title: title, siteURL: siteURL, feedURL: feedURL, isPrimary: isPrimary,
            createdAt: now)
        records.append(.blog(blog))
        return blog
    }

    /// A notification for `recipient`.
    /// - Returns: The notification.
    @discardableResult
    public mutating func notification(
        _ kind: NotificationKind, for recipient: User, from actor: User?, isRead: Bool = false
    ) -> DiaryNotification {
        let record = NotificationRecord(
            id: id(), recipientID: recipient.id, kind: kind, actorID: actor?.id, bookID: nil, diaryID: nil, postID: nil,
            commentID: nil, createdAt: now, isRead: isRead)
        records.append(.notification(record))
        return DiaryNotification(
            id: record.id, recipientID: recipient.id, kind: kind,
            actor: actor.map { AuthorSummary(id: $0.id, nickname: $0.nickname) }, createdAt: record.createdAt,
            isRead: isRead)
    }

    /// An uploaded image owned by `owner`.
    /// - Returns: The reference to put in content.
    @discardableResult
    public mutating func image(owner: User, data: Data = Fixtures.tinyPNG, contentType: String = "image/png")
        -> ImageReference
    {
        let attachment = Attachment(
            id: id(), ownerID: owner.id, contentType: contentType, byteCount: data.count, createdAt: now)
        records.append(.attachment(attachment))
        blobs.append((attachment.id, data))
        return attachment.reference
    }

    /// A valid 1×1 PNG.
    public static let tinyPNG = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
}

extension InMemoryBackend {
    /// Adds fixtures in one transaction.
    ///
    /// ```swift
    /// let (alice, bob) = backend.seed { fixtures in
    ///     let alice = fixtures.user("alice"), bob = fixtures.user("bob")
    ///     fixtures.follow(alice, by: bob)
    ///     return (alice, bob)
    /// }
    /// ```
    /// - Parameter build: Builds the fixtures and returns what the test needs.
    /// - Returns: What `build` returned.
    @discardableResult
    public func seed<Result>(_ build: (inout Fixtures) throws -> Result) rethrows -> Result {
        var fixtures = Fixtures(
            environment: configuration.environment, iterations: configuration.engine.passwordHashIterations)
        let result = try build(&fixtures)
        for (id, data) in fixtures.blobs { store.saveBlobNow(data, for: id) }
        let records = fixtures.records
        store.put(records)
        return result
    }
}
