@_spi(Storage) import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

/// The exact JSON of persisted rows and keys in the current layout, pinned: renaming a property or case of a public
/// type, or changing its REST coding, must not change a byte of these. A deliberate format change adds a new
/// ``PersistedLayout`` (and a migration) rather than editing these strings.
@Suite("Persisted rows: golden JSON")
struct PersistedRowGoldenTests {
    /// One row of every kind, plus every case of the enums with values inside rows (post sources, comment and
    /// report targets), all rows of ``StoreFixture``.
    static let rows: [String] = [
        ##"{"user":{"avatar":{"byteCount":70,"contentType":"image/png","id":"00000000-0000-4000-8000-000000000010"},"bio":"Writes every day.","createdAt":"2026-11-23T08:00:00.123456Z","email":"alice@example.com","id":"00000000-0000-4000-8000-000000000001","nickname":"alice","settings":{"dailyReminder":{"hour":20,"isEnabled":true,"minute":30},"notifications":["commentOnPost","replyToComment","yourTurn"],"showsDeletedEntryTraces":false,"timeZoneIdentifier":"Europe/Berlin"}}}"##,
        ##"{"user":{"bio":"","createdAt":"2026-11-23T08:00:02.123456Z","id":"00000000-0000-4000-8000-000000000003","nickname":"Carol ✍️"}}"##,
        ##"{"credential":{"email":"alice@example.com","externalIdentities":["apple:000123.abc"],"hash":"aGFzaA==","iterations":1000,"salt":"c2FsdA==","userID":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"session":{"createdAt":"2026-11-23T08:00:03.123456Z","tokenHash":"abababababababababababababababababababababababababababababababab","userID":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"device":{"device":{"platform":"apns","token":"apns-token-alice"},"registeredAt":"2026-11-23T08:00:05.123456Z","userID":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"attachment":{"byteCount":70,"contentType":"image/png","createdAt":"2026-11-23T08:00:07.123456Z","id":"00000000-0000-4000-8000-000000000010","ownerID":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"book":{"coverColor":"#FFD166","createdAt":"2026-11-23T08:00:10.123456Z","currentTurn":"00000000-0000-4000-8000-000000000002","id":"00000000-0000-4000-8000-000000000020","inviteCode":"K7Q2M9XP","ownerID":"00000000-0000-4000-8000-000000000001","stickers":[{"name":"star","rotation":15,"x":0.25,"y":0.5},{"name":"sun","rotation":0,"x":0.75,"y":0.1}],"title":"Our summer","updatedAt":"2026-11-23T08:00:11.123456Z"}}"##,
        ##"{"membership":{"bookID":"00000000-0000-4000-8000-000000000020","joinedAt":"2026-11-23T08:00:10.123456Z","role":"owner","userID":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"diary":{"authorID":"00000000-0000-4000-8000-000000000001","body":"Learned what fsync does, and why rename needs it too.","createdAt":"2026-11-23T08:00:20.123456Z","day":"2026-11-22","id":"00000000-0000-4000-8000-000000000040","images":[{"byteCount":70,"contentType":"image/png","id":"00000000-0000-4000-8000-000000000010"}],"isFavourite":true,"isHidden":false,"mood":"😊","tags":["til","storage"],"title":"Sunday","updatedAt":"2026-11-23T08:01:45.123456Z","visibility":"private"}}"##,
        ##"{"post":{"authorID":"00000000-0000-4000-8000-000000000001","body":"First post.","createdAt":"2026-11-23T08:00:40.123456Z","day":"2026-11-23","id":"00000000-0000-4000-8000-000000000050","images":[{"byteCount":70,"contentType":"image/png","id":"00000000-0000-4000-8000-000000000010"}],"isAnonymous":false,"source":{"type":"original"},"tags":["intro"],"title":"Hello","updatedAt":"2026-11-23T08:00:41.123456Z"}}"##,
        ##"{"post":{"authorID":"00000000-0000-4000-8000-000000000001","body":"Not on my calendar.","createdAt":"2026-11-23T08:00:42.123456Z","day":"2026-11-21","id":"00000000-0000-4000-8000-000000000051","images":[],"isAnonymous":false,"source":{"id":"00000000-0000-4000-8000-000000000042","type":"diary"},"tags":[],"title":"Hidden","updatedAt":"2026-11-23T08:00:42.123456Z"}}"##,
        ##"{"post":{"authorID":"00000000-0000-4000-8000-000000000001","body":"<p>Imported &amp; kept.</p>","createdAt":"2026-11-23T08:00:43.123456Z","day":"2026-11-19","id":"00000000-0000-4000-8000-000000000052","images":[],"isAnonymous":false,"source":{"blogID":"00000000-0000-4000-8000-000000000030","guid":"tag:alice.example.com,2026:1","type":"blog","url":"https://alice.example.com/2026/11/first"},"tags":["blog"],"title":"From my blog","updatedAt":"2026-11-23T08:00:44.123456Z"}}"##,
        ##"{"post":{"authorID":"00000000-0000-4000-8000-000000000002","body":"Nobody knows it's me.","createdAt":"2026-11-23T08:00:45.123456Z","day":"2026-11-23","id":"00000000-0000-4000-8000-000000000053","images":[],"isAnonymous":true,"source":{"type":"original"},"tags":[],"title":"Secret","updatedAt":"2026-11-23T08:00:45.123456Z"}}"##,
        ##"{"post":{"authorID":"00000000-0000-4000-8000-000000000003","body":"Written after the snapshot.","createdAt":"2026-11-23T08:01:41.123456Z","day":"2026-11-23","id":"00000000-0000-4000-8000-000000000054","images":[],"isAnonymous":true,"source":{"id":"00000000-0000-4000-8000-000000000044","type":"diary"},"tags":["late"],"title":"Journal only","updatedAt":"2026-11-23T08:01:41.123456Z"}}"##,
        ##"{"comment":{"authorID":"00000000-0000-4000-8000-000000000001","body":"Nice entry!","createdAt":"2026-11-23T08:00:50.123456Z","id":"00000000-0000-4000-8000-000000000060","isAnonymous":false,"target":{"id":"00000000-0000-4000-8000-000000000041","type":"diary"},"updatedAt":"2026-11-23T08:00:50.123456Z"}}"##,
        ##"{"comment":{"authorID":"00000000-0000-4000-8000-000000000001","body":"Thanks :)","createdAt":"2026-11-23T08:00:53.123456Z","id":"00000000-0000-4000-8000-000000000062","isAnonymous":false,"parentID":"00000000-0000-4000-8000-000000000061","target":{"id":"00000000-0000-4000-8000-000000000050","type":"post"},"updatedAt":"2026-11-23T08:00:53.123456Z"}}"##,
        ##"{"like":{"createdAt":"2026-11-23T08:00:55.123456Z","postID":"00000000-0000-4000-8000-000000000050","userID":"00000000-0000-4000-8000-000000000002"}}"##,
        ##"{"follow":{"createdAt":"2026-11-23T08:00:56.123456Z","from":"00000000-0000-4000-8000-000000000002","to":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"block":{"createdAt":"2026-11-23T08:00:57.123456Z","from":"00000000-0000-4000-8000-000000000003","to":"00000000-0000-4000-8000-000000000002"}}"##,
        ##"{"anonymousBlock":{"createdAt":"2026-11-23T08:00:58.123456Z","from":"00000000-0000-4000-8000-000000000001","to":"00000000-0000-4000-8000-000000000003"}}"##,
        ##"{"report":{"createdAt":"2026-11-23T08:01:01.123456Z","detail":"","id":"00000000-0000-4000-8000-000000000071","reason":"spam","reporterID":"00000000-0000-4000-8000-000000000001","target":{"id":"00000000-0000-4000-8000-000000000053","type":"post"}}}"##,
        ##"{"report":{"createdAt":"2026-11-23T08:01:02.123456Z","detail":"Rude.","id":"00000000-0000-4000-8000-000000000072","reason":"abuse","reporterID":"00000000-0000-4000-8000-000000000001","target":{"id":"00000000-0000-4000-8000-000000000063","type":"comment"}}}"##,
        ##"{"report":{"createdAt":"2026-11-23T08:01:03.123456Z","detail":"Shared by mistake?","id":"00000000-0000-4000-8000-000000000073","reason":"other","reporterID":"00000000-0000-4000-8000-000000000002","target":{"id":"00000000-0000-4000-8000-000000000042","type":"diary"}}}"##,
        ##"{"report":{"createdAt":"2026-11-23T08:01:44.123456Z","detail":"Journal-only report.","id":"00000000-0000-4000-8000-000000000074","reason":"inappropriate","reporterID":"00000000-0000-4000-8000-000000000003","target":{"id":"00000000-0000-4000-8000-000000000054","type":"post"}}}"##,
        ##"{"notification":{"actorID":"00000000-0000-4000-8000-000000000002","commentID":"00000000-0000-4000-8000-000000000061","createdAt":"2026-11-23T08:00:51.123456Z","id":"00000000-0000-4000-8000-000000000080","isRead":true,"kind":"commentOnPost","postID":"00000000-0000-4000-8000-000000000050","recipientID":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"notification":{"anonymousActorID":"00000000-0000-4000-8000-000000000003","commentID":"00000000-0000-4000-8000-000000000063","createdAt":"2026-11-23T08:00:54.123456Z","id":"00000000-0000-4000-8000-000000000081","isRead":false,"kind":"commentOnPost","postID":"00000000-0000-4000-8000-000000000050","recipientID":"00000000-0000-4000-8000-000000000001"}}"##,
        ##"{"blog":{"createdAt":"2026-11-23T08:00:29.123456Z","feedURL":"https://alice.example.com/feed.xml","id":"00000000-0000-4000-8000-000000000030","isPrimary":true,"ownerID":"00000000-0000-4000-8000-000000000001","siteURL":"https://alice.example.com/","sync":{"etag":"\"abc123\"","lastModified":"Mon, 23 Nov 2026 07:00:00 GMT","lastSyncedAt":"2026-11-23T08:00:30.123456Z"},"title":"Alice's notes"}}"##,
    ]

    /// Rows of kinds added after the committed fixture stores were written (which hold none), pinned with the
    /// values they stand for.
    static let rowsSinceFixture: [(String, StoreRecord)] = [
        (
            ##"{"retiredID":{"id":"00000000-0000-4000-8000-000000000055","kind":"post","retiredAt":"2026-11-27T14:30:00.123456Z"}}"##,
            .retiredID(RetiredIDRecord(
                id: (StoreFixture.id(55) as Post.ID).rawValue, kind: .post, retiredAt: Date(timeIntervalSince1970: 1_795_789_800.123456)))
        ),
        (
            ##"{"outbox":{"attempts":2,"createdAt":"2026-11-27T14:30:00.123456Z","id":"00000000-0000-4000-8000-000000000056","operation":"diaries.write","payload":"{\"title\":\"Subway\"}","sequence":7,"subject":"00000000-0000-4000-8000-000000000057","userID":"00000000-0000-4000-8000-000000000001"}}"##,
            .outbox(OutboxRecord(
                id: (StoreFixture.id(56) as Post.ID).rawValue, sequence: 7, userID: StoreFixture.alice,
                subject: (StoreFixture.id(57) as Diary.ID).rawValue, operation: "diaries.write", payload: #"{"title":"Subway"}"#,
                createdAt: Date(timeIntervalSince1970: 1_795_789_800.123456), attempts: 2))
        ),
    ]

    /// Keys of one and two fields, as a journal's deletes carry them.
    static let keys: [(RecordKey, String)] = [
        (.device(StoreFixture.bob, "fcm-token-bob"), ##"{"device":{"token":"fcm-token-bob","userID":"00000000-0000-4000-8000-000000000002"}}"##),
        (.session("cdcd"), ##"{"session":{"tokenHash":"cdcd"}}"##),
        (.membership(StoreFixture.book, StoreFixture.bob), ##"{"membership":{"bookID":"00000000-0000-4000-8000-000000000020","userID":"00000000-0000-4000-8000-000000000002"}}"##),
        (.report(StoreFixture.id(70)), ##"{"report":{"id":"00000000-0000-4000-8000-000000000070"}}"##),
        (.like(StoreFixture.bob, StoreFixture.originalPost), ##"{"like":{"postID":"00000000-0000-4000-8000-000000000050","userID":"00000000-0000-4000-8000-000000000002"}}"##),
        (.anonymousBlock(StoreFixture.alice, StoreFixture.carol), ##"{"anonymousBlock":{"from":"00000000-0000-4000-8000-000000000001","to":"00000000-0000-4000-8000-000000000003"}}"##),
        (.credential(StoreFixture.alice), ##"{"credential":{"userID":"00000000-0000-4000-8000-000000000001"}}"##),
        (.retiredID((StoreFixture.id(55) as Post.ID).rawValue), ##"{"retiredID":{"id":"00000000-0000-4000-8000-000000000055"}}"##),
        (.outbox((StoreFixture.id(56) as Post.ID).rawValue), ##"{"outbox":{"id":"00000000-0000-4000-8000-000000000056"}}"##),
    ]

    @Test func everyRowKindIsWrittenExactlyAsPinned() throws {
        let fixtureRows = Dictionary(uniqueKeysWithValues: StoreFixture.expectedRecords.map { ($0.key, $0) })
        var kinds = Set<StoreRecord.Kind>()
        for golden in Self.rows {
            let record = try JSONDecoder.persisted().decode(StoreRecord.self, from: Data(golden.utf8))
            #expect(fixtureRows[record.key] == record, "the pinned row reads back as the fixture's row")
            #expect(String(decoding: try JSONEncoder.persisted().encode(record), as: UTF8.self) == golden)
            kinds.insert(record.kind)
        }
        for (golden, expected) in Self.rowsSinceFixture {
            let record = try JSONDecoder.persisted().decode(StoreRecord.self, from: Data(golden.utf8))
            #expect(record == expected, "the pinned row reads back as its value")
            #expect(String(decoding: try JSONEncoder.persisted().encode(record), as: UTF8.self) == golden)
            kinds.insert(record.kind)
        }
        #expect(kinds == Set(StoreRecord.Kind.allCases))
    }

    /// A snapshot section holds the row without its kind key: the same object.
    @Test func aSnapshotRowIsThePinnedRowWithoutItsKind() throws {
        for golden in Self.rows + Self.rowsSinceFixture.map(\.0) {
            let record = try JSONDecoder.persisted().decode(StoreRecord.self, from: Data(golden.utf8))
            let row = String(decoding: try record.encodeRow(with: JSONEncoder.persisted()), as: UTF8.self)
            #expect(golden == #"{""# + record.kind.rawValue + #"":"# + row + "}")
            let section = Data(("[" + row + "]").utf8)
            #expect(try StoreRecord.decodeRows(of: record.kind, from: section, with: .persisted()) == [record])
        }
    }

    @Test func keysAreWrittenExactlyAsPinned() throws {
        for (key, golden) in Self.keys {
            #expect(String(decoding: try JSONEncoder.persisted().encode(key), as: UTF8.self) == golden)
            #expect(try JSONDecoder.persisted().decode(RecordKey.self, from: Data(golden.utf8)) == key)
        }
    }
}
