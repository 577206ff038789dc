@_spi(Storage) import DiarySDK
import Foundation

extension FileDiaryStore {
    /// The folder that keeps the snapshots and journals a rows migration replaced, for a person to restore from;
    /// the store never reads it.
    static let replacedFilesFolder = "replaced-by-schema-4"

    /// What the open had read when it runs ``migrateRows(_:)``.
    struct RowsMigration {
        var header: StoreHeader
        var database: LocalDatabase
        /// The sequence the store ends at.
        var sequence: UInt64
        /// The generation of the snapshot that was loaded, and whether its rows are in the current layout.
        var snapshotGeneration: Int
        var snapshotInCurrentLayout: Bool
        var replay: JournalReplay
        var now: Date
    }

    /// What a rows migration left: the header, and, when it rewrote the rows, the generation it wrote (whose journal
    /// the store appends to from then on) and the size of its snapshot. Both are `nil` when it rewrote `store.json`
    /// alone: the store then goes on exactly as it was read, with the journal it was appending to and an unfinished
    /// compaction, if there was one, still to retry.
    struct MigratedRows {
        var header: StoreHeader
        var generation: Int?
        var snapshotBytes: Int?
    }

    /// Schema 3 → 4: brings every row the store holds into the current ``PersistedLayout``, crash-safely.
    ///
    /// 1. When anything was read in an older layout, a journal whose rows are all current is found or started (the
    ///    newest journal, when it holds nothing but a start record in the current layout; else a new one, written
    ///    whole and `fsync`ed), then the snapshot of that generation is written in the current layout (temporary
    ///    file, `fsync`, rename, `fsync` of the directory).
    /// 2. The older snapshots and journals are moved into ``replacedFilesFolder`` (never deleted), then both
    ///    directories are `fsync`ed.
    /// 3. Last, `store.json` says the current schema (5). A schema 4 store, whose rows are current, takes this
    ///    step alone: schema 5 only allows reserved zero bytes at the end of a journal.
    ///
    /// A crash before step 3 leaves a schema 3 store that reopens and runs this again: it reads the new files (each
    /// record and snapshot says its layout) or the old ones, whichever are newest, and finishes. Nothing is written
    /// when everything is current and the header already says so.
    static func migrateRows(_ input: RowsMigration, in directory: String, io: any FileIO) throws -> MigratedRows? {
        let readOlder = !input.snapshotInCurrentLayout || input.replay.readOlderLayout
        guard readOlder || input.header.schemaVersion < FileStoreSchema.currentVersion else { return nil }
        var target = input.snapshotGeneration
        var snapshotBytes: Int?
        if readOlder, let last = input.replay.last {
            let reusable = last.startsInCurrentLayout && last.transactions == 0
            target = reusable ? last.generation : last.generation + 1
            if !reusable {
                try io.writeAtomically(
                    try JournalFormat.newJournal(generation: target, after: input.sequence),
                    to: directory + "/" + StoreFiles.journalName(target))
            }
            let snapshot = try SnapshotFormat.encode(
                input.database.allRecords, generation: target, sequence: input.sequence)
            try io.writeAtomically(snapshot, to: directory + "/" + StoreFiles.snapshotName(target))
            snapshotBytes = snapshot.count
        }
        try keepReplacedGenerations(below: target, in: directory, io: io)
        var header = input.header
        if header.schemaVersion < FileStoreSchema.currentVersion {
            header.migrations.append(
                .init(from: header.schemaVersion, to: FileStoreSchema.currentVersion, appliedAt: input.now))
            header.schemaVersion = FileStoreSchema.currentVersion
            try FileStoreSchema.writeHeader(header, in: directory, io: io)
        }
        return MigratedRows(header: header, generation: snapshotBytes == nil ? nil : target, snapshotBytes: snapshotBytes)
    }

    /// Moves the snapshots and journals older than `generation` into ``replacedFilesFolder``.
    private static func keepReplacedGenerations(below generation: Int, in directory: String, io: any FileIO) throws {
        let generations = StoreFiles.generations(in: try io.listDirectory(directory))
        let names =
            generations.snapshots.filter { $0 < generation }.sorted().map(StoreFiles.snapshotName)
            + generations.journals.filter { $0 < generation }.sorted().map(StoreFiles.journalName)
        guard !names.isEmpty else { return }
        let folder = directory + "/" + replacedFilesFolder
        try io.makeDirectory(folder)
        for name in names { try io.rename(directory + "/" + name, to: folder + "/" + name) }
        try io.syncDirectory(folder)
        try io.syncDirectory(directory)
    }
}
