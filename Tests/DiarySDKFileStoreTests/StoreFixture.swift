@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

@testable import DiarySDKFileStore

/// The rows of the committed fixture `Fixtures/store-schema3`: at least one row of every ``StoreRecord`` kind, with
/// every case of the enums inside rows, some in the snapshot and some only in the journal after it (puts, a
/// replacement and deletes).
///
/// Everything is fixed (ids, dates, text), so a test can rebuild exactly what the fixture holds without reading it.
/// ``write(to:)`` writes the store; the fixture was written by it at the commit its README names, and must not be
/// rewritten by later code (it is the format of that release).
enum StoreFixture {
    /// One change of a journal transaction.
    enum Change {
        case put(StoreRecord)
        case remove(RecordKey)
    }

    static func id<Entity>(_ number: Int) -> EntityID<Entity> {
        EntityID(UUID(uuidString: "00000000-0000-4000-8000-" + String(format: "%012d", number))!)
    }

    /// A microsecond-aligned instant, `seconds` after 2026-11-23T08:00:00.123456Z.
    static func at(_ seconds: Int) -> Date {
        WireDate.normalized(Date(timeIntervalSince1970: 1_795_420_800 + Double(seconds) + 0.123456))
    }

    static let alice: User.ID = id(1)
    static let bob: User.ID = id(2)
    static let carol: User.ID = id(3)
    static let picture: Attachment.ID = id(10)
    static let book: DiaryBook.ID = id(20)
    static let blog: Blog.ID = id(30)
    static let privateEntry: Diary.ID = id(40)
    static let bookEntry: Diary.ID = id(41)
    static let hiddenEntry: Diary.ID = id(42)
    static let deletedTrace: Diary.ID = id(43)
    static let journalEntry: Diary.ID = id(44)
    static let originalPost: Post.ID = id(50)
    static let sharedPost: Post.ID = id(51)
    static let importedPost: Post.ID = id(52)
    static let anonymousPost: Post.ID = id(53)
    static let journalPost: Post.ID = id(54)

    /// The bytes of the fixture's one attachment, `attachments/<picture>`.
    static let pictureBytes = tinyPNG

    static var pictureReference: ImageReference {
        ImageReference(id: picture, contentType: "image/png", byteCount: pictureBytes.count)
    }

    /// The rows written before the compaction: all of them end up in the snapshot.
    static var snapshotRecords: [StoreRecord] {
        let settings = UserSettings(
            dailyReminder: DailyReminder(isEnabled: true, hour: 20, minute: 30),
            notifications: [.commentOnPost, .replyToComment, .yourTurn], showsDeletedEntryTraces: false,
            timeZoneIdentifier: "Europe/Berlin")
        let users: [StoreRecord] = [
            .user(User(
                id: alice, nickname: "alice", email: "alice@example.com", bio: "Writes every day.",
                avatar: pictureReference, createdAt: at(0), settings: settings)),
            .user(User(id: bob, nickname: "bob", email: "bob@example.com", createdAt: at(1), settings: UserSettings())),
            .user(User(id: carol, nickname: "Carol ✍️", createdAt: at(2))),
            .credential(CredentialRecord(
                userID: alice, email: "alice@example.com", salt: "c2FsdA==", iterations: 1_000, hash: "aGFzaA==",
                externalIdentities: ["apple:000123.abc"])),
            .credential(CredentialRecord(
                userID: bob, email: "bob@example.com", salt: "c2FsdDI=", iterations: 210_000, hash: "aGFzaDI=",
                externalIdentities: [])),
            .session(SessionRecord(tokenHash: String(repeating: "ab", count: 32), userID: alice, createdAt: at(3))),
            .session(SessionRecord(tokenHash: String(repeating: "cd", count: 32), userID: bob, createdAt: at(4))),
            .device(DeviceRecord(
                userID: alice, device: DeviceToken(token: "apns-token-alice", platform: .apns), registeredAt: at(5))),
            .device(DeviceRecord(
                userID: bob, device: DeviceToken(token: "fcm-token-bob", platform: .fcm), registeredAt: at(6))),
            .attachment(Attachment(
                id: picture, ownerID: alice, contentType: "image/png", byteCount: pictureBytes.count, createdAt: at(7))),
        ]
        let books: [StoreRecord] = [
            .book(DiaryBook(
                id: book, title: "Our summer", coverColor: "#FFD166",
                stickers: [Sticker(name: "star", x: 0.25, y: 0.5, rotation: 15), Sticker(name: "sun", x: 0.75, y: 0.1)],
                ownerID: alice, inviteCode: "K7Q2M9XP", currentTurn: bob, createdAt: at(10), updatedAt: at(11))),
            .membership(MembershipRecord(bookID: book, userID: alice, role: .owner, joinedAt: at(10))),
            .membership(MembershipRecord(bookID: book, userID: bob, role: .member, joinedAt: at(12))),
            .diary(Diary(
                id: privateEntry, authorID: alice, day: LocalDate(year: 2026, month: 11, day: 22)!, title: "Sunday",
                body: "Learned what fsync does.", mood: .happy, tags: ["til", "storage"], images: [pictureReference],
                visibility: .private, isFavourite: true, createdAt: at(20), updatedAt: at(21))),
            .diary(Diary(
                id: bookEntry, authorID: bob, bookID: book, day: LocalDate(year: 2026, month: 11, day: 23)!,
                title: "", body: "My turn in the book.", mood: Mood(rawValue: "🌧️"), visibility: .members,
                createdAt: at(22), updatedAt: at(22))),
            .diary(Diary(
                id: hiddenEntry, authorID: alice, day: LocalDate(year: 2026, month: 11, day: 21)!, title: "Hidden",
                body: "Not on my calendar.", visibility: .shared, isHidden: true, createdAt: at(23), updatedAt: at(24))),
            .diary(Diary(
                id: deletedTrace, authorID: alice, bookID: book, day: LocalDate(year: 2026, month: 11, day: 20)!,
                title: "", body: "", visibility: .members, createdAt: at(25), updatedAt: at(26), deletedAt: at(26))),
            .blog(Blog(
                id: blog, ownerID: alice, title: "Alice's notes", siteURL: URL(string: "https://alice.example.com/")!,
                feedURL: URL(string: "https://alice.example.com/feed.xml")!, isPrimary: true,
                sync: BlogSyncState(
                    lastSyncedAt: at(30), etag: "\"abc123\"", lastModified: "Mon, 23 Nov 2026 07:00:00 GMT",
                    lastError: nil),
                createdAt: at(29))),
        ]
        let community: [StoreRecord] = [
            .post(PostRecord(
                id: originalPost, authorID: alice, isAnonymous: false, title: "Hello", body: "First post.",
                tags: ["intro"], images: [pictureReference], source: .original,
                day: LocalDate(year: 2026, month: 11, day: 23)!, createdAt: at(40), updatedAt: at(41))),
            .post(PostRecord(
                id: sharedPost, authorID: alice, isAnonymous: false, title: "Hidden", body: "Not on my calendar.",
                tags: [], images: [], source: .diary(hiddenEntry), day: LocalDate(year: 2026, month: 11, day: 21)!,
                createdAt: at(42), updatedAt: at(42))),
            .post(PostRecord(
                id: importedPost, authorID: alice, isAnonymous: false, title: "From my blog",
                body: "<p>Imported &amp; kept.</p>", tags: ["blog"], images: [],
                source: .blog(BlogImport(
                    blogID: blog, guid: "tag:alice.example.com,2026:1",
                    url: URL(string: "https://alice.example.com/2026/11/first")!)),
                day: LocalDate(year: 2026, month: 11, day: 19)!, createdAt: at(43), updatedAt: at(44))),
            .post(PostRecord(
                id: anonymousPost, authorID: bob, isAnonymous: true, title: "Secret", body: "Nobody knows it's me.",
                tags: [], images: [], source: .original, day: LocalDate(year: 2026, month: 11, day: 23)!,
                createdAt: at(45), updatedAt: at(45))),
            .comment(CommentRecord(
                id: id(60), target: .diary(bookEntry), parentID: nil, authorID: alice, isAnonymous: false,
                body: "Nice entry!", mood: nil, createdAt: at(50), updatedAt: at(50))),
            .comment(CommentRecord(
                id: id(61), target: .post(originalPost), parentID: nil, authorID: bob, isAnonymous: false,
                body: "Welcome!", mood: .calm, createdAt: at(51), updatedAt: at(52))),
            .comment(CommentRecord(
                id: id(62), target: .post(originalPost), parentID: id(61), authorID: alice, isAnonymous: false,
                body: "Thanks :)", mood: nil, createdAt: at(53), updatedAt: at(53))),
            .comment(CommentRecord(
                id: id(63), target: .post(originalPost), parentID: nil, authorID: carol, isAnonymous: true,
                body: "Guess who.", mood: nil, createdAt: at(54), updatedAt: at(54))),
            .like(LikeRecord(userID: bob, postID: originalPost, createdAt: at(55))),
            .follow(EdgeRecord(from: bob, to: alice, createdAt: at(56))),
            .block(EdgeRecord(from: carol, to: bob, createdAt: at(57))),
            .anonymousBlock(EdgeRecord(from: alice, to: carol, createdAt: at(58))),
            .report(Report(
                id: id(70), reporterID: bob, target: .user(carol), reason: .impersonation, detail: "Not the real Carol.",
                createdAt: at(60))),
            .report(Report(
                id: id(71), reporterID: alice, target: .post(anonymousPost), reason: .spam, detail: "",
                createdAt: at(61))),
            .report(Report(
                id: id(72), reporterID: alice, target: .comment(id(63)), reason: .abuse, detail: "Rude.",
                createdAt: at(62))),
            .report(Report(
                id: id(73), reporterID: bob, target: .diary(hiddenEntry), reason: .other, detail: "Shared by mistake?",
                createdAt: at(63))),
            .notification(NotificationRecord(
                id: id(80), recipientID: alice, kind: .commentOnPost, actorID: bob, bookID: nil, diaryID: nil,
                postID: originalPost, commentID: id(61), createdAt: at(51), isRead: true)),
            .notification(NotificationRecord(
                id: id(81), recipientID: alice, kind: .commentOnPost, actorID: nil, anonymousActorID: carol,
                bookID: nil, diaryID: nil, postID: originalPost, commentID: id(63), createdAt: at(54), isRead: false)),
            .notification(NotificationRecord(
                id: id(82), recipientID: bob, kind: .yourTurn, actorID: alice, bookID: book, diaryID: nil, postID: nil,
                commentID: nil, createdAt: at(11), isRead: false)),
        ]
        return users + books + community
    }

    /// The transactions written after the compaction: they are only in the journal.
    static var journalTransactions: [[Change]] {
        [
            [
                .put(.diary(Diary(
                    id: journalEntry, authorID: carol, day: LocalDate(year: 2026, month: 11, day: 23)!,
                    title: "Journal only", body: "Written after the snapshot.", mood: .tired, tags: ["late"],
                    visibility: .shared, createdAt: at(100), updatedAt: at(100)))),
                .put(.post(PostRecord(
                    id: journalPost, authorID: carol, isAnonymous: true, title: "Journal only",
                    body: "Written after the snapshot.", tags: ["late"], images: [], source: .diary(journalEntry),
                    day: LocalDate(year: 2026, month: 11, day: 23)!, createdAt: at(101), updatedAt: at(101)))),
            ],
            [
                .put(.comment(CommentRecord(
                    id: id(64), target: .post(importedPost), parentID: nil, authorID: bob, isAnonymous: false,
                    body: "Journal-only comment.", mood: .sad, createdAt: at(102), updatedAt: at(102)))),
                .put(.comment(CommentRecord(
                    id: id(65), target: .diary(journalEntry), parentID: nil, authorID: alice, isAnonymous: true,
                    body: "Anonymous, in the journal.", mood: nil, createdAt: at(103), updatedAt: at(103)))),
                .put(.notification(NotificationRecord(
                    id: id(83), recipientID: carol, kind: .commentOnEntry, actorID: nil, anonymousActorID: alice,
                    bookID: nil, diaryID: journalEntry, postID: nil, commentID: id(65), createdAt: at(103),
                    isRead: false))),
                .put(.report(Report(
                    id: id(74), reporterID: carol, target: .post(journalPost), reason: .inappropriate,
                    detail: "Journal-only report.", createdAt: at(104)))),
            ],
            [
                // A replacement of a snapshot row.
                .put(.diary(Diary(
                    id: privateEntry, authorID: alice, day: LocalDate(year: 2026, month: 11, day: 22)!, title: "Sunday",
                    body: "Learned what fsync does, and why rename needs it too.", mood: .happy,
                    tags: ["til", "storage"], images: [pictureReference], visibility: .private, isFavourite: true,
                    createdAt: at(20), updatedAt: at(105)))),
                .put(.like(LikeRecord(userID: carol, postID: originalPost, createdAt: at(106)))),
                .put(.follow(EdgeRecord(from: carol, to: alice, createdAt: at(107)))),
            ],
            [
                // Deletes: keys of one and two fields.
                .remove(.device(bob, "fcm-token-bob")),
                .remove(.session(String(repeating: "cd", count: 32))),
                .remove(.report(id(70))),
                .remove(.membership(book, bob)),
            ],
        ]
    }

    /// Every row the fixture holds once its journal is replayed, in ``LocalDatabase/allRecords`` order.
    static var expectedRecords: [StoreRecord] {
        var database = LocalDatabase()
        database.put(contentsOf: snapshotRecords)
        for transaction in journalTransactions {
            for change in transaction {
                switch change {
                case .put(let record): database.put(record)
                case .remove(let key): database.remove(key)
                }
            }
        }
        return database.allRecords
    }

    /// Writes the fixture store into an empty directory with this version's file store: the snapshot rows in one
    /// transaction, a compaction (so they are in `snapshot-2.json`), then each journal transaction, then a clean
    /// close.
    static func write(to directory: TestDirectory) async throws {
        let backend = try directory.open(clock: ManualClock(at(0)))
        try await backend.store.saveBlob(pictureBytes, for: picture)
        try await backend.store.write("fixture.snapshot") { transaction in
            for record in snapshotRecords { try await transaction.put(record) }
        }
        try await backend.store.compactNow()
        for (index, changes) in journalTransactions.enumerated() {
            try await backend.store.write("fixture.journal.\(index)") { transaction in
                for change in changes {
                    switch change {
                    case .put(let record): try await transaction.put(record)
                    case .remove(let key): try await transaction.remove(key)
                    }
                }
            }
        }
        try await backend.close()
    }
}
