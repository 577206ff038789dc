import DiarySDK
import Foundation

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

/// The metadata file: read once, written whole (to a temporary file, flushed, renamed) after each change.
final class SyncMetadataFile: Sendable {
    let url: URL
    private let contents: Locked<SyncMetadata>

    init(url: URL) throws {
        self.url = url
        guard let data = FileManager.default.contents(atPath: url.path) else {
            contents = Locked(SyncMetadata())
            return
        }
        do {
            contents = Locked(try Self.decoder.decode(SyncMetadata.self, from: data))
        } catch {
            throw DiaryError(.storageCorrupted, "the sync state \(url.path) could not be read", underlying: error)
        }
    }

    var current: SyncMetadata { contents.current }

    /// Changes the metadata and writes it out.
    @discardableResult
    func update<Result>(_ change: (inout SyncMetadata) throws -> Result) throws -> Result {
        let (result, data) = try contents.withLock { metadata in
            let result = try change(&metadata)
            return (result, try Self.encoder.encode(metadata))
        }
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw DiaryError(.unavailable, "the sync state \(url.path) could not be written", underlying: error)
        }
        return result
    }

    /// Dates as the wire writes them (RFC 3339 with microseconds), so an entry's `updatedAt` reads back exactly.
    private static let encoder = JSONEncoder.diary()
    private static let decoder = JSONDecoder.diary()
}
