@_spi(Storage) import DiarySDK
@testable import DiarySDKOffline
import Foundation
import Testing

/// `sync.json` is put together from parts, each acknowledged write encoded once and reused while it is unchanged:
/// what a new launch reads back must be what was last flushed, after writes were added, changed and dropped.
@Suite("Offline sync metadata file")
struct OfflineSyncMetadataTests {
    static func diary(_ id: Diary.ID, author: User.ID, title: String, at seconds: TimeInterval) -> Diary {
        let date = Date(timeIntervalSince1970: 1_790_000_000 + seconds)
        return Diary(
            id: id, authorID: author, day: LocalDate(date, in: TimeZone(identifier: "UTC")!), title: title,
            body: "A \"quoted\" body / with a slash, é and 😊.", mood: "😊", tags: ["a", "b"], createdAt: date,
            updatedAt: date)
    }

    /// What a new launch reads, compared field by field with what was flushed.
    static func expectReadBack(_ written: SyncMetadata, from url: URL) throws {
        let read = SyncMetadataFile(url: url).current
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathExtension("damaged").path))
        #expect(read.acknowledged.mapValues { $0.mapValues(\.value) } == written.acknowledged.mapValues { $0.mapValues(\.value) })
        #expect(read.acknowledged.mapValues { $0.mapValues(\.fields) } == written.acknowledged.mapValues { $0.mapValues(\.fields) })
        #expect(read.acknowledged.mapValues { $0.mapValues(\.pass) } == written.acknowledged.mapValues { $0.mapValues(\.pass) })
        #expect(read.positions == written.positions)
        #expect(read.lastSyncedAt == written.lastSyncedAt)
        #expect(read.nextConflictID == written.nextConflictID)
        #expect(read.conflicts.mapValues { $0.map(\.id) } == written.conflicts.mapValues { $0.map(\.id) })
        #expect(read.conflicts.mapValues { $0.map(\.written) } == written.conflicts.mapValues { $0.map(\.written) })
    }

    @Test func whatANewLaunchReadsIsWhatWasLastFlushedAsWritesAreAddedChangedAndDropped() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-metadata-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("sync.json")
        let file = SyncMetadataFile(url: url)
        let users = [User.ID(UUID()), User.ID(UUID())]
        let ids = (0..<12).map { _ in Diary.ID(UUID()) }

        file.change { metadata in
            for (index, id) in ids.enumerated() {
                let user = users[index % 2]
                metadata.acknowledged[user.rawValue.uuidString, default: [:]][id.rawValue.uuidString] = .init(
                    value: Self.diary(id, author: user, title: "Entry \(index)", at: Double(index)),
                    fields: [.title, .body], pass: 7)
            }
            metadata.positions[users[0].rawValue.uuidString] = ChangePosition("42")
            metadata.lastSyncedAt[users[1].rawValue.uuidString] = Date(timeIntervalSince1970: 1_790_000_123.456789)
        }
        try file.flush()
        try Self.expectReadBack(file.current, from: url)

        // One write changed, one dropped, one added, a conflict recorded: the unchanged ones are reused.
        file.change { metadata in
            let first = users[0].rawValue.uuidString
            metadata.acknowledged[first]?[ids[0].rawValue.uuidString]?.value.title = "Edited \"again\""
            metadata.acknowledged[first]?[ids[0].rawValue.uuidString]?.fields = [.title]
            metadata.acknowledged[first]?[ids[2].rawValue.uuidString]?.pass = 8
            metadata.acknowledged[users[1].rawValue.uuidString]?[ids[1].rawValue.uuidString] = nil
            let added = Diary.ID(UUID())
            metadata.acknowledged[first]?[added.rawValue.uuidString] = .init(
                value: Self.diary(added, author: users[0], title: "Added", at: 100), fields: [.tags], pass: 8)
            metadata.conflicts[first] = [
                SyncConflict(
                    id: metadata.nextConflictID, kind: .overwritten, subject: .entry(ids[4]), fields: [.title],
                    written: Self.diary(ids[4], author: users[0], title: "Mine", at: 4), server: nil, writtenComment: nil,
                    errorCode: nil, errorMessage: nil, detectedAt: Date(timeIntervalSince1970: 1_790_000_200))
            ]
            metadata.nextConflictID += 1
        }
        try file.flush()
        try Self.expectReadBack(file.current, from: url)
        let reread = SyncMetadataFile(url: url).current
        #expect(reread.acknowledged[users[0].rawValue.uuidString]?[ids[0].rawValue.uuidString]?.value.title == "Edited \"again\"")
        #expect(reread.acknowledged[users[1].rawValue.uuidString]?[ids[1].rawValue.uuidString] == nil)
        #expect(reread.acknowledged.values.map(\.count).reduce(0, +) == 12)

        // Every user's writes dropped (signed out everywhere): an empty map.
        file.change { $0.acknowledged = [:] }
        try file.flush()
        try Self.expectReadBack(file.current, from: url)
        #expect(SyncMetadataFile(url: url).current.acknowledged.isEmpty)
    }

    @Test func theFileIsWhatTheEncoderWritesForTheWholeMetadata() throws {
        let users = [User.ID(UUID()), User.ID(UUID()), User.ID(UUID())]
        var metadata = SyncMetadata()
        for index in 0..<30 {
            let user = users[index % 3]
            let id = Diary.ID(UUID())
            metadata.acknowledged[user.rawValue.uuidString, default: [:]][id.rawValue.uuidString] = .init(
                value: Self.diary(id, author: user, title: "Entry \(index)", at: Double(index)), fields: [.title],
                pass: index)
        }
        metadata.positions[users[2].rawValue.uuidString] = ChangePosition("17")
        var cache: [String: [String: (write: SyncMetadata.AcknowledgedWrite, json: Data)]] = [:]
        let assembled = try SyncMetadataFile.encode(metadata, reusing: &cache)
        #expect(String(decoding: assembled, as: UTF8.self) == String(decoding: try JSONEncoder.diary().encode(metadata), as: UTF8.self))
        #expect(cache.values.map(\.count).reduce(0, +) == 30)
        // From the cache, the same bytes.
        #expect(try SyncMetadataFile.encode(metadata, reusing: &cache) == assembled)
    }
}
