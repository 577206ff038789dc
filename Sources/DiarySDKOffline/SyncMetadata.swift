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

    struct AcknowledgedWrite: Codable, Equatable, Sendable {
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
///
/// The acknowledged writes (up to ``SyncMetadata/acknowledgedLimit`` entries per user, each a whole `Diary`) are
/// most of the file, and most passes change one or none of them: each is encoded once and its JSON kept until it
/// changes, so a flush encodes what changed and copies the rest (it was 35% of the client's CPU time with
/// `.serverWhenReachable`, a pass per write, when the whole file was encoded at every flush).
final class SyncMetadataFile: Sendable {
    let url: URL
    private let contents: Locked<Contents>

    private struct Contents {
        var metadata: SyncMetadata
        var isDirty: Bool
        /// Per user, per entry: an acknowledged write as last encoded, and its JSON member (`"entry":{...}`).
        var encodedWrites: [String: [String: (write: SyncMetadata.AcknowledgedWrite, json: Data)]] = [:]
    }

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
        contents = Locked(Contents(metadata: metadata, isDirty: false))
    }

    var current: SyncMetadata { contents.withLock { $0.metadata } }

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
            return try Self.encode(contents.metadata, reusing: &contents.encodedWrites)
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

    /// The JSON of `metadata`, as the encoder writes it (sorted keys), put together from its parts: each
    /// acknowledged write (its JSON member) is taken from `cache` when it is unchanged, and `cache` is left holding
    /// exactly the acknowledged writes of `metadata`. The keys are `SyncMetadata.CodingKeys`' in sorted order
    /// (`OfflineSyncMetadataTests` compares the result with the encoder's own).
    static func encode(
        _ metadata: SyncMetadata,
        reusing cache: inout [String: [String: (write: SyncMetadata.AcknowledgedWrite, json: Data)]]
    ) throws -> Data {
        var encoded: [String: [String: (write: SyncMetadata.AcknowledgedWrite, json: Data)]] = [:]
        var data = Data()
        data.append(contentsOf: #"{"acknowledged":{"#.utf8)
        for (userIndex, (user, writes)) in metadata.acknowledged.sorted(by: { $0.key < $1.key }).enumerated() {
            if userIndex > 0 { data.append(UInt8(ascii: ",")) }
            data.append(try encoder.encode(user))
            data.append(contentsOf: ":{".utf8)
            let cached = cache[user] ?? [:]
            var entries: [String: (write: SyncMetadata.AcknowledgedWrite, json: Data)] = [:]
            entries.reserveCapacity(writes.count)
            for (entryIndex, (entry, write)) in writes.sorted(by: { $0.key < $1.key }).enumerated() {
                if entryIndex > 0 { data.append(UInt8(ascii: ",")) }
                // The member, `"key":value`.
                let member: Data
                if let previous = cached[entry], previous.write == write {
                    member = previous.json
                } else {
                    member = try encoder.encode(entry) + Data(":".utf8) + encoder.encode(write)
                }
                data.append(member)
                entries[entry] = (write, member)
            }
            data.append(UInt8(ascii: "}"))
            encoded[user] = entries
        }
        data.append(contentsOf: #"},"conflicts":"#.utf8)
        data.append(try encoder.encode(metadata.conflicts))
        data.append(contentsOf: #","lastSyncedAt":"#.utf8)
        data.append(try encoder.encode(metadata.lastSyncedAt))
        data.append(contentsOf: #","nextConflictID":"#.utf8)
        data.append(try encoder.encode(metadata.nextConflictID))
        data.append(contentsOf: #","positions":"#.utf8)
        data.append(try encoder.encode(metadata.positions))
        data.append(UInt8(ascii: "}"))
        cache = encoded
        return data
    }

    /// Dates as the wire writes them (RFC 3339 with microseconds), so an entry's `updatedAt` reads back exactly.
    private static let encoder = JSONEncoder.diary()
    private static let decoder = JSONDecoder.diary()
}
