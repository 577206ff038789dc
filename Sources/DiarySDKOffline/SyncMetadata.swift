import DiarySDK
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the sync keeps besides the replica, in `sync.json` next to it: where the live changes stopped, when the
/// last sync ended, the conflicts not yet cleared, and what the server answered to the user's last write of each
/// entry (to tell a later write from another device that replaced it).
struct SyncMetadata: Codable, Sendable {
    /// The last change position applied from the server, per user.
    var positions: [String: ChangePosition] = [:]
    var lastSyncedAt: [String: Date] = [:]
    var conflicts: [String: [SyncConflict]] = [:]
    var nextConflictID = 1
    /// Per user, per entry: the server's answer to this device's latest writes and the fields they set.
    var acknowledged: [String: [String: AcknowledgedWrite]] = [:]

    struct AcknowledgedWrite: Codable, Sendable {
        var value: Diary
        var fields: Set<DiaryField>
        /// The sync pass that sent it: writes to one entry sent in one pass count together.
        var pass: Int
        private enum CodingKeys: String, CodingKey {
            case value = "value"
            case fields = "fields"
            case pass = "pass"
        }
    }

    /// How many acknowledged writes are kept per user (the oldest go first): enough for every entry a user edits
    /// between two syncs on another device.
    static let acknowledgedLimit = 2_000
    /// How many conflicts are kept per user until cleared.
    static let conflictLimit = 500

    private enum CodingKeys: String, CodingKey {
        case positions = "positions"
        case lastSyncedAt = "lastSyncedAt"
        case conflicts = "conflicts"
        case nextConflictID = "nextConflictID"
        case acknowledged = "acknowledged"
    }
}

/// The metadata file: read once, changed in memory, and written whole (a temporary file, flushed, then renamed
/// over the old one) when a conflict is recorded and at the end of each sync pass.
final class SyncMetadataFile: Sendable {
    let url: URL
    private let contents: Locked<(metadata: SyncMetadata, isDirty: Bool)>

    /// Reads the file. A file that cannot be read (cut short by a power loss) is set aside as `sync.json.damaged`
    /// and the sync starts over from empty metadata: it only costs a full refresh and the conflicts not yet
    /// cleared, never a write (those are in the replica's outbox).
    init(url: URL) {
        self.url = url
        var metadata = SyncMetadata()
        if let data = FileManager.default.contents(atPath: url.path) {
            if let read = try? Self.decoder.decode(SyncMetadata.self, from: data) {
                metadata = read
            } else {
                let damaged = url.appendingPathExtension("damaged")
                try? FileManager.default.removeItem(at: damaged)
                try? FileManager.default.moveItem(at: url, to: damaged)
            }
        }
        contents = Locked((metadata, false))
    }

    var current: SyncMetadata { contents.current.metadata }

    /// Changes the metadata in memory; ``flush()`` writes it.
    func change(_ body: (inout SyncMetadata) -> Void) {
        contents.withLock { contents in
            body(&contents.metadata)
            contents.isDirty = true
        }
    }

    /// Changes the metadata and writes it out at once.
    @discardableResult
    func update<Result>(_ change: (inout SyncMetadata) throws -> Result) throws -> Result {
        let result = try contents.withLock { contents in
            let result = try change(&contents.metadata)
            contents.isDirty = true
            return result
        }
        try flush()
        return result
    }

    /// Writes the metadata if it changed since the last write.
    func flush() throws {
        let data = try contents.withLock { contents -> Data? in
            guard contents.isDirty else { return nil }
            contents.isDirty = false
            return try Self.encoder.encode(contents.metadata)
        }
        guard let data else { return }
        let temporary = url.appendingPathExtension("tmp")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            // rename(2) replaces the old file in one step, whether or not there is one.
            guard rename(temporary.path, url.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: ["errno": errno])
            }
        } catch {
            contents.withLock { $0.isDirty = true }
            throw DiaryError(.unavailable, "the sync state \(url.path) could not be written", underlying: error)
        }
    }

    /// Dates as the wire writes them (RFC 3339 with microseconds), so an entry's `updatedAt` reads back exactly.
    private static let encoder = JSONEncoder.diary()
    private static let decoder = JSONDecoder.diary()
}
