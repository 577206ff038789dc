import DiarySDK
import Foundation

/// `store.json`: what the directory is and which version of the layout it uses.
struct StoreHeader: Codable, Equatable {
    /// One migration that ran on this store.
    struct AppliedMigration: Codable, Equatable {
        var from: Int
        var to: Int
        var appliedAt: Date
    }

    var format: String
    var schemaVersion: Int
    var migrations: [AppliedMigration]

    static let formatName = "diarysdk-file-store"
}

/// The schema versions of the file store and the ordered steps that bring an older store up to date.
///
/// Version 1 kept every row in one `records.json` array, rewritten whole on each save. Version 2 (current) keeps
/// checksummed snapshots and a write-ahead journal. Each step leaves the files it replaces beside the new ones
/// (renamed, never deleted), then records itself in `store.json`, so nothing is ever lost to a migration and a step
/// interrupted by a crash simply runs again.
enum FileStoreSchema {
    /// The version this code writes.
    static let currentVersion = 2

    /// One step from version `from` to `from + 1`.
    struct Step: Sendable {
        var from: Int
        var run: @Sendable (_ directory: String, _ io: any FileIO) throws -> Void
    }

    /// Every step, in order.
    static let steps: [Step] = [Step(from: 1, run: migrateSingleFileToJournal)]

    /// Reads `store.json`, or `nil` for a directory that holds no store yet.
    static func readHeader(in directory: String, io: any FileIO) throws -> StoreHeader? {
        let path = directory + "/store.json"
        guard let data = try io.readFile(path) else { return nil }
        do {
            let header = try JSONDecoder.diary().decode(StoreHeader.self, from: data)
            guard header.format == StoreHeader.formatName else {
                throw DiaryError(.storageCorrupted, "\(path) is not a DiarySDK file store header")
            }
            return header
        } catch let error as DiaryError {
            throw error
        } catch {
            throw DiaryError(.storageCorrupted, "the store header \(path) is not readable JSON", underlying: error)
        }
    }

    /// Writes `store.json` durably.
    static func writeHeader(_ header: StoreHeader, in directory: String, io: any FileIO) throws {
        let encoder = JSONEncoder.diary()
        encoder.outputFormatting.insert(.prettyPrinted)
        try io.writeAtomically(try encoder.encode(header), to: directory + "/store.json")
    }

    /// Refuses a store written by a newer version, before anything is touched.
    static func checkSupported(_ header: StoreHeader, directory: String) throws {
        guard header.schemaVersion <= currentVersion else {
            throw DiaryError(
                .storageCorrupted,
                "the store at \(directory) was written by a newer version of DiarySDK (schema \(header.schemaVersion); "
                    + "this version reads up to \(currentVersion)); update the app to open it")
        }
        guard header.schemaVersion >= 1 else {
            throw DiaryError(.storageCorrupted, "the store at \(directory) has an invalid schema version \(header.schemaVersion)")
        }
    }

    /// Runs every step from the header's version to the current one, recording each.
    /// - Returns: The header after the migrations and the steps that ran, as `(from, to)` pairs.
    static func migrate(
        _ header: StoreHeader, in directory: String, io: any FileIO, now: Date
    ) throws -> (StoreHeader, [FileStoreOpenReport.Migration]) {
        var header = header
        var applied: [FileStoreOpenReport.Migration] = []
        while header.schemaVersion < currentVersion {
            guard let step = steps.first(where: { $0.from == header.schemaVersion }) else {
                throw DiaryError(.storageCorrupted, "no migration from schema \(header.schemaVersion) at \(directory)")
            }
            try step.run(directory, io)
            header.migrations.append(.init(from: step.from, to: step.from + 1, appliedAt: now))
            header.schemaVersion = step.from + 1
            try writeHeader(header, in: directory, io: io)
            applied.append(FileStoreOpenReport.Migration(from: step.from, to: step.from + 1))
        }
        return (header, applied)
    }

    /// Version 1 → 2: the single `records.json` array becomes snapshot generation 1 with an empty journal; the old
    /// file is kept as `records.v1.json`.
    @Sendable static func migrateSingleFileToJournal(directory: String, io: any FileIO) throws {
        let oldPath = directory + "/records.json"
        let keptPath = directory + "/records.v1.json"
        guard let data = try io.readFile(oldPath) ?? io.readFile(keptPath) else {
            throw DiaryError(.storageCorrupted, "the version 1 store at \(directory) has no records.json")
        }
        let records: [WireRecord]
        do {
            records = try JSONDecoder.diary().decode([WireRecord].self, from: data)
        } catch {
            throw DiaryError(.storageCorrupted, "\(oldPath) (schema 1) does not decode", underlying: error)
        }
        let snapshot = try SnapshotFormat.encode(records.map(\.record), generation: 1)
        try io.writeAtomically(snapshot, to: directory + "/" + StoreFiles.snapshotName(1))
        try io.createEmptyFile(directory + "/" + StoreFiles.journalName(1))
        if try io.readFile(oldPath) != nil {
            try io.rename(oldPath, to: keptPath)
            try io.syncDirectory(directory)
        }
    }
}
