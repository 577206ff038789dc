@_spi(Storage) @testable import DiarySDK
import DiarySDKConformance
import Foundation

/// Random rows of every kind, drawn from small pools of ids and values so that puts replace rows, index values
/// collide and listings tie on time: the input of the local database's model-based tests.
struct RandomStoreRecords {
    var random: SeededRandomGenerator

    /// Users in the pools.
    static let userCount = 6
    static let postCount = 64

    init(seed: UInt64) {
        random = SeededRandomGenerator(seed: seed)
    }

    mutating func int(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(values.count)] }

    static func id<T>(_ kind: UInt8, _ number: Int) -> EntityID<T> {
        let byte = { (shift: Int) in UInt8(truncatingIfNeeded: number >> shift) }
        return EntityID(UUID(uuid: (kind, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(16), byte(8), byte(0))))
    }

    static func user(_ number: Int) -> User.ID { id(1, number) }

    mutating func user() -> User.ID { Self.user(int(Self.userCount)) }
    mutating func postID() -> Post.ID { Self.id(5, int(Self.postCount)) }
    mutating func attachmentID() -> Attachment.ID { Self.id(2, int(8)) }
    mutating func bookID() -> DiaryBook.ID { Self.id(4, int(4)) }
    mutating func blogID() -> Blog.ID { Self.id(6, int(3)) }
    mutating func commentID() -> Comment.ID { Self.id(7, int(10)) }
    /// Few distinct instants, so rows tie on time and their ids break the tie.
    mutating func date() -> Date { Date(timeIntervalSince1970: Double(int(40)) * 25_000) }
    mutating func day() -> LocalDate { LocalDate(year: 2024, month: 1 + int(3), day: 1 + int(28))! }

    /// Words with accents, apostrophes, hyphens, symbols, other scripts and markup.
    static let vocabulary = [
        "swift", "Swift", "café", "cafe\u{301}", "CAFÉ", "naïve", "don’t", "don't", "e-mail", "c++", "日本語", "über",
        "hello", "world", "helloworld", "x", "ab", "abc", "abcd", "fish", "dish", "<b>bold</b>", "&amp;", "a.b",
        "— dash", "ﬁne", "Ａｂｃ", "\u{1100}\u{1161}",
    ]

    mutating func text() -> String {
        (0..<int(6)).map { _ in pick(Self.vocabulary) }.joined(separator: pick([" ", " ", "\n", ", ", "-", ""]))
    }

    mutating func tags() -> [String] {
        (0..<int(3)).map { _ in pick(["Swift", "swift", "Travel", "日本", "c++", "x"]) }
    }

    mutating func image() -> [ImageReference] {
        chance(30) ? [ImageReference(id: attachmentID(), contentType: "image/png", byteCount: 1)] : []
    }

    mutating func post() -> PostRecord {
        let source: PostSource
        switch int(3) {
        case 0: source = .original
        case 1: source = .diary(Self.id(3, int(12)))
        default:
            source = .blog(
                BlogImport(
                    blogID: blogID(), guid: chance(70) ? "g\(int(4))" : nil,
                    url: chance(50) ? URL(string: "https://example.com/\(int(4))") : nil))
        }
        var body = text()
        if case .blog = source, chance(50) { body = "<p>\(body)</p><script>hidden</script>" }
        return PostRecord(
            id: postID(), authorID: user(), isAnonymous: chance(35), title: text(), body: body, tags: tags(),
            images: image(), source: source, day: day(), createdAt: date(), updatedAt: date())
    }

    mutating func edge() -> EdgeRecord { EdgeRecord(from: user(), to: user(), createdAt: date()) }

    /// A row of any kind.
    mutating func record() -> StoreRecord {
        switch int(20) {
        case 0:
            return .user(User(id: user(), nickname: pick(["alice", "Alice", "bob", "al1ce", "carol"]), createdAt: date()))
        case 1:
            let identities = (0..<int(3)).map { _ in pick(["apple:1", "google:2", "apple:3"]) }
            return .credential(
                CredentialRecord(
                    userID: user(), email: pick(["a@x", "b@x", "c@x"]), salt: "s", iterations: 1, hash: "h",
                    externalIdentities: Array(Set(identities))))
        case 2: return .session(SessionRecord(tokenHash: "t\(int(8))", userID: user(), createdAt: date()))
        case 3:
            return .device(
                DeviceRecord(userID: user(), device: DeviceToken(token: "d\(int(4))", platform: .apns), registeredAt: date()))
        case 4:
            return .attachment(
                Attachment(id: attachmentID(), ownerID: user(), contentType: "image/png", byteCount: 1, createdAt: date()))
        case 5, 6:
            return .diary(
                Diary(
                    id: Self.id(3, int(12)), authorID: user(), bookID: chance(40) ? bookID() : nil, day: day(),
                    title: text(), body: text(), tags: tags(), images: image(), createdAt: date(), updatedAt: date()))
        case 7:
            return .book(
                DiaryBook(
                    id: bookID(), title: "b", coverColor: "#fff", ownerID: user(),
                    inviteCode: chance(60) ? "code\(int(3))" : nil, createdAt: date(), updatedAt: date()))
        case 8: return .membership(MembershipRecord(bookID: bookID(), userID: user(), role: .member, joinedAt: date()))
        case 9, 10, 11: return .post(post())
        case 12:
            return .comment(
                CommentRecord(
                    id: commentID(), target: chance(50) ? .post(postID()) : .diary(Self.id(3, int(12))),
                    parentID: chance(40) ? commentID() : nil, authorID: user(), isAnonymous: chance(30), body: text(),
                    mood: nil, createdAt: date(), updatedAt: date()))
        case 13, 14: return .like(LikeRecord(userID: user(), postID: postID(), createdAt: date()))
        case 15: return .follow(edge())
        case 16:
            // The retired id and the outbox entry reuse the two edges' draws, so the sequences other kinds draw stay as they were.
            let block = edge(), anonymousBlock = edge()
            let retired = RetiredIDRecord(
                id: anonymousBlock.to.rawValue, kind: .post, retiredAt: block.createdAt)
            let queued = OutboxRecord(
                id: block.to.rawValue, sequence: 1, userID: block.from, subject: anonymousBlock.from.rawValue,
                operation: "diaries.delete",
                payload: #"{"id":"x"}"#, createdAt: block.createdAt)
            return pick([.block(block), .anonymousBlock(anonymousBlock), .retiredID(retired), .outbox(queued)])
        case 17:
            return .report(
                Report(id: Self.id(8, int(4)), reporterID: user(), target: .user(user()), reason: .spam, detail: "",
                    createdAt: date()))
        case 18:
            return .notification(
                NotificationRecord(
                    id: Self.id(9, int(6)), recipientID: user(), kind: .nudge, actorID: chance(50) ? user() : nil,
                    anonymousActorID: chance(30) ? user() : nil, bookID: nil, diaryID: nil, postID: nil, commentID: nil,
                    createdAt: date(), isRead: false))
        default:
            return .blog(
                Blog(
                    id: blogID(), ownerID: user(), title: "b", siteURL: URL(string: "https://example.com")!,
                    feedURL: URL(string: "https://example.com/feed")!, isPrimary: false, createdAt: date()))
        }
    }

    /// Filters that hide named and anonymous authors, include the viewer among them, and leave anonymous rows out.
    static let filters: [RowFilter] = [
        .none,
        RowFilter(viewer: user(0)),
        RowFilter(viewer: user(1), hiddenNamedAuthors: [user(2), user(3), user(1)]),
        RowFilter(viewer: user(2), hiddenAnonymousAuthors: [user(1), user(2), user(4)]),
        RowFilter(viewer: user(3), includesAnonymous: false),
        RowFilter(viewer: nil, hiddenNamedAuthors: [user(0)], hiddenAnonymousAuthors: [user(5)], includesAnonymous: false),
        RowFilter(viewer: user(4), hiddenNamedAuthors: [user(5), user(0)], hiddenAnonymousAuthors: [user(5), user(4)]),
    ]
}
