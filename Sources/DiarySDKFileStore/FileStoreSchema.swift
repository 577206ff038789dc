@_spi(Storage) import DiarySDK
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
/// Version 1 kept every row in one `records.json` array, rewritten whole on each save. Version 2 kept checksummed
/// snapshots and a write-ahead journal. Version 3 is version 2 with sequences checked end to end: snapshots record
/// the sequence they include, each journal starts with a start record, and a clean close writes `closed.json`.
/// Version 4 writes rows through the persisted row types (``PersistedLayout/explicit``), independent of the
/// public types' coding; its step runs after the open has read the rows (`FileDiaryStore.migrateRows`). Version 5
/// (current) lets a journal end in zero bytes reserved for the records to come (``JournalFormat``), which an older
/// release would read as damage; its step rewrites `store.json` alone, after the rows step when both run. Each step
/// leaves the files it replaces beside the new ones (renamed, never deleted), then records itself in `store.json`. A step that a crash interrupted runs again over its own output; a step whose
/// preconditions do not hold (files it did not write, such as a journal with records, under a `store.json` restored
/// from an older backup) refuses with `.storageCorrupted` and changes nothing.
enum FileStoreSchema {
    /// The version this code writes.
    static let currentVersion = 5

    /// The version whose rows are in the current ``PersistedLayout``: a store at it or later needs no rows step.
    static let rowsLayoutVersion = 4

    /// The version the steps here bring a store to; the step from it to ``currentVersion`` rewrites the rows once
    /// they are read (`FileDiaryStore.migrateRows`).
    static let rowsStepVersion = 3

    /// One step from version `from` to `from + 1`.
    struct Step: Sendable {
        var from: Int
        var run: @Sendable (_ directory: String, _ io: any FileIO) throws -> Void
    }

    /// Every step, in order.
    static let steps: [Step] = [
        Step(from: 1, run: migrateSingleFileToJournal),
        // Version 2 files are read as they are: a snapshot without a sequence starts the check at the first journal
        // record, and a journal without a start record is checked from its first record.
        Step(from: 2, run: { _, _ in }),
    ]

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

    /// Runs every step from the header's version to ``rowsStepVersion``, recording each.
    /// - Returns: The header after the migrations and the steps that ran, as `(from, to)` pairs.
    static func migrate(
        _ header: StoreHeader, in directory: String, io: any FileIO, now: Date
    ) throws -> (StoreHeader, [FileStoreOpenReport.Migration]) {
        var header = header
        var applied: [FileStoreOpenReport.Migration] = []
        while header.schemaVersion < rowsStepVersion {
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
    ///
    /// The step writes only `journal-1.log` and `snapshot-1.json`, and only over nothing or over its own output (an
    /// empty journal, a snapshot of the same rows), so running it again after a crash is safe and running it over a
    /// store that has moved on since is refused.
    /// - Throws: ``DiaryError`` `.storageCorrupted` when `records.json` is missing or unreadable, or when the
    ///   directory holds snapshot or journal files the step did not write (nothing is changed then).
    @Sendable static func migrateSingleFileToJournal(directory: String, io: any FileIO) throws {
        let oldPath = directory + "/records.json"
        let keptPath = directory + "/records.v1.json"
        guard let data = try io.readFile(oldPath) ?? io.readFile(keptPath) else {
            throw DiaryError(.storageCorrupted, "the version 1 store at \(directory) has no records.json")
        }
        let records: [StoreRecord]
        do {
            // Written before schema 4: rows in the synthesized layout.
            records = try JSONDecoder.persisted(.synthesized).decode([StoreRecord].self, from: data)
        } catch {
            throw DiaryError(.storageCorrupted, "\(oldPath) (schema 1) does not decode", underlying: error)
        }
        var database = LocalDatabase()
        database.put(contentsOf: records)
        let journalPath = directory + "/" + StoreFiles.journalName(1)
        let snapshotPath = directory + "/" + StoreFiles.snapshotName(1)
        let journal = try JournalFormat.newJournal(generation: 1, after: 0)
        let existingJournal = try io.readFile(journalPath)
        let existingSnapshot = try io.readFile(snapshotPath)
        let ownSnapshot = try existingSnapshot.map { try SnapshotFormat.decode($0, file: snapshotPath) }
        try checkOwnOutput(
            in: directory, io: io, journal: existingJournal.map { $0.isEmpty || $0 == journal } ?? true,
            snapshot: ownSnapshot ?? database.allRecords, expected: database.allRecords)
        // The journal first: a snapshot is never without its journal.
        if existingJournal == nil { try io.writeAtomically(journal, to: journalPath) }
        if existingSnapshot == nil {
            try io.writeAtomically(
                try SnapshotFormat.encode(database.allRecords, generation: 1, sequence: 0), to: snapshotPath)
        }
        if try io.readFile(oldPath) != nil {
            try io.rename(oldPath, to: keptPath)
            try io.syncDirectory(directory)
        }
    }

    /// Refuses to migrate a version 1 store over files the migration did not write.
    private static func checkOwnOutput(
        in directory: String, io: any FileIO, journal journalIsOwn: Bool, snapshot: [StoreRecord],
        expected: [StoreRecord]
    ) throws {
        let generations = StoreFiles.generations(in: try io.listDirectory(directory))
        var foreign = generations.snapshots.subtracting([1]).sorted().map(StoreFiles.snapshotName)
            + generations.journals.subtracting([1]).sorted().map(StoreFiles.journalName)
        if !journalIsOwn { foreign.insert(StoreFiles.journalName(1), at: 0) }
        if snapshot != expected { foreign.insert(StoreFiles.snapshotName(1), at: 0) }
        guard foreign.isEmpty else {
            throw DiaryError(
                .storageCorrupted,
                "the store at \(directory) says schema 1 in store.json but already holds "
                    + foreign.joined(separator: ", ")
                    + ", written after a migration; migrating again would overwrite them, so nothing was changed "
                    + "(restore the store.json that belongs with these files)")
        }
    }
}
