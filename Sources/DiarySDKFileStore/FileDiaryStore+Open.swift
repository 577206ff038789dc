@_spi(Storage) import DiarySDK
import Foundation

extension FileDiaryStore {
    struct Opened {
        var state: State
        var report: FileStoreOpenReport
        var lockDescriptor: Int32
    }

    /// Opens a store directory: refuses a newer schema before touching anything, takes the lock, creates or
    /// migrates the store, loads the newest snapshot, replays the journals after it (cutting off a torn tail on the
    /// last one), then removes superseded generations, temporary files and orphan attachment files (unless a loss of
    /// acknowledged records has not been acknowledged yet, see ``DataLossMarker``).
    /// - Throws: ``DiaryError`` `.conflict` when another process holds the store, `.storageCorrupted` for damaged
    ///   files (naming the file and byte offset) or a newer schema, `.unavailable` for I/O failures.
    static func open(directory: String, io: any FileIO, now: Date) throws -> Opened {
        do {
            return try openUnmapped(directory: directory, io: io, now: now)
        } catch let error as FileIOError {
            throw error.diaryError
        }
    }

    /// How long an open waits for the store's lock before it reports the store open elsewhere.
    static let lockPatience: TimeInterval = 2

    /// Takes the store's lock, trying again for up to ``lockPatience`` seconds. A lock can be held for a moment by a
    /// process that did not open the store: one this process is spawning holds a copy of every descriptor between
    /// `fork` and `exec` (close-on-exec releases it only at `exec`), which on a loaded machine can be long enough for
    /// a close and reopen in between to find the lock taken.
    private static func lockWaitingBriefly(_ descriptor: Int32, path: String, io: any FileIO) throws -> Bool {
        let deadline = Date().addingTimeInterval(lockPatience)
        while true {
            if try io.lockExclusively(descriptor, path: path) { return true }
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
    }

    private static func openUnmapped(directory: String, io: any FileIO, now: Date) throws -> Opened {
        if let header = try FileStoreSchema.readHeader(in: directory, io: io) {
            try FileStoreSchema.checkSupported(header, directory: directory)
        }
        try io.makeDirectory(directory)
        let lockPath = directory + "/" + StoreFiles.lock
        let lockDescriptor = try io.openFile(lockPath, create: true)
        do {
            guard try lockWaitingBriefly(lockDescriptor, path: lockPath, io: io) else {
                throw DiaryError(.conflict, "the store at \(directory) is open in another process")
            }
            let (state, report) = try load(directory: directory, io: io, now: now)
            return Opened(state: state, report: report, lockDescriptor: lockDescriptor)
        } catch {
            io.close(lockDescriptor)
            throw error
        }
    }

    private static func load(directory: String, io: any FileIO, now: Date) throws -> (State, FileStoreOpenReport) {
        var report = FileStoreOpenReport()
        let found = try FileStoreSchema.readHeader(in: directory, io: io)
        let header = try found ?? create(in: directory, io: io)
        report.createdStore = found == nil
        try FileStoreSchema.checkSupported(header, directory: directory)
        report.foundSchemaVersion = header.schemaVersion
        let (migrated, fileSteps) = try FileStoreSchema.migrate(header, in: directory, io: io, now: now)
        report.migrations = fileSteps
        try io.makeDirectory(directory + "/" + StoreFiles.attachments)

        var names = try io.listDirectory(directory)
        for name in names where isTemporary(name) { try io.removeFile(directory + "/" + name) }
        names.removeAll(where: isTemporary)
        let generations = StoreFiles.generations(in: names)
        // The text index of the posts is built after the open, off the write path (``buildPostTextIndex()``).
        var database = LocalDatabase(indexingPostText: false)
        let newest = try NewestSnapshot(
            in: directory, snapshots: generations.snapshots, io: io, while: "opening", into: &database)
        let generation = newest.generation
        report.generation = generation
        let snapshotPath = newest.path
        let snapshot = newest.header

        let marker = try CloseMarker.read(in: directory, io: io)
        let journals = try expectedJournals(
            generations.journals, after: generation, marker: marker, directory: directory)
        var replay = JournalReplay(after: snapshot.sequence, of: snapshotPath)
        var last = JournalFormat.Scan()
        var unfinished: Compaction?
        for journal in journals {
            if journal == journals.last, journal > generation {
                // Snapshot `journal` was never written (a crash, or a compaction that kept failing): the database as of
                // the end of the journal before is what it must hold, retried on the first write (copy-on-write, so
                // this copy costs memory only for the rows the last journal changes).
                unfinished = Compaction(
                    generation: journal, database: database, sequence: replay.sequence, isRetry: true)
            }
            let path = directory + "/" + StoreFiles.journalName(journal)
            guard let data = try io.readFile(path) else {
                throw DiaryError(.storageCorrupted, "the journal \(path) disappeared while opening")
            }
            last = try replay.replay(
                data, path: path, generation: journal, isLast: journal == journals.last, into: &database)
        }
        let lastGeneration = journals[journals.count - 1]
        let journalPath = directory + "/" + StoreFiles.journalName(lastGeneration)
        let sequence = replay.sequence ?? 0
        report.replayedTransactions = replay.replayed
        // Records the last clean close saw acknowledged but the journals no longer hold were lost from the end.
        let lost = marker.map { $0.sequence > sequence ? Int($0.sequence - sequence) : 0 } ?? 0
        report.droppedAcknowledgedRecords = lost
        report.droppedRecords = max(lost, last.tornBytes > 0 ? 1 : 0)
        if last.tornBytes > 0 {
            report.recoveredTornTail = true
            report.tornJournalFile = journalPath
            report.discardedBytes = last.tornBytes
        }

        let descriptor = try io.openFile(journalPath, create: false)
        let allocated: Int
        do {
            if report.recoveredTornTail {
                try io.truncate(descriptor, to: last.validLength, path: journalPath)
                try io.sync(descriptor, path: journalPath)
            }
            // The loss is counted once; from now on the store's known end is what it holds. But a lost record may be
            // the row of an attachment file that is still wanted, so the orphan sweep stays suspended (durably, and
            // before `closed.json` forgets the loss) until the app acknowledges it.
            var lossMarker = try DataLossMarker.read(in: directory, io: io)
            if lost > 0 {
                let earlier = lossMarker?.droppedAcknowledgedRecords ?? 0
                let marker = DataLossMarker(droppedAcknowledgedRecords: earlier + lost)
                try marker.write(in: directory, io: io)
                lossMarker = marker
                try CloseMarker(generation: lastGeneration, sequence: sequence).write(in: directory, io: io)
            }
            report.isOrphanSweepSuspended = lossMarker != nil
            if migrated.schemaVersion >= FileStoreSchema.rowsLayoutVersion {
                // Before schema 4 the older generations are kept by the rows migration below, not deleted.
                try removeGenerations(below: generation, in: directory, names: names, io: io)
            }
            if !report.isOrphanSweepSuspended {
                report.removedOrphanAttachments = try removeOrphanAttachments(in: directory, database: database, io: io)
            }
            // The records, then the space reserved after them (docs/FileStoreFormat.md).
            allocated = try io.size(descriptor, path: journalPath)
        } catch {
            io.close(descriptor)
            throw error
        }
        var journal = Journal(
            generation: lastGeneration, path: journalPath, descriptor: descriptor, length: last.validLength,
            allocated: allocated)
        var snapshotBytes = newest.byteCount
        let rows = RowsMigration(
            header: migrated, database: database, sequence: sequence, snapshotGeneration: generation,
            snapshotInCurrentLayout: snapshot.layout == PersistedLayout.current.rawValue, replay: replay, now: now)
        do {
            if let rewritten = try migrateRows(rows, in: directory, io: io) {
                if migrated.schemaVersion < rewritten.header.schemaVersion {
                    report.migrations.append(.init(from: migrated.schemaVersion, to: rewritten.header.schemaVersion))
                }
                if let written = rewritten.snapshotBytes, let generation = rewritten.generation {
                    snapshotBytes = written
                    unfinished = nil
                    report.generation = generation
                }
                // Only a migration that wrote a generation moves the writes to its journal; one that rewrote
                // `store.json` alone leaves the store appending where it was (the newest journal).
                if let generation = rewritten.generation, generation != lastGeneration {
                    let path = directory + "/" + StoreFiles.journalName(generation)
                    let opened = try io.openFile(path, create: false)
                    let length: Int
                    do {
                        length = try io.size(opened, path: path)
                    } catch {
                        io.close(opened)
                        throw error
                    }
                    io.close(descriptor)
                    journal = Journal(
                        generation: generation, path: path, descriptor: opened, length: length, allocated: length)
                }
            }
        } catch {
            io.close(journal.descriptor)
            throw error
        }
        var state = State(database: database, journal: journal, sequence: sequence, snapshotBytes: snapshotBytes)
        state.journalLength = journal.length
        state.pendingCompaction = unfinished.map { PendingCompaction(compaction: $0, retryAtLength: 0) }
        return (state, report)
    }

    /// The journals to replay after snapshot `generation`: `generation`, `generation + 1`, … without a gap. Snapshot
    /// `g` is only ever written after journal `g` exists, and the last clean close names the journal it ended in, so
    /// a journal either of them expects and that is missing is corruption, never something to recreate empty.
    /// - Throws: ``DiaryError`` `.storageCorrupted` naming the missing journal.
    private static func expectedJournals(
        _ present: Set<Int>, after generation: Int, marker: CloseMarker?, directory: String
    ) throws -> [Int] {
        let journals = present.filter { $0 >= generation }.sorted()
        func missing(_ journal: Int, _ why: String) -> DiaryError {
            DiaryError(
                .storageCorrupted,
                "the store at \(directory) is missing \(StoreFiles.journalName(journal)), which \(why) expects; "
                    + "nothing was changed")
        }
        guard journals.first == generation else {
            throw missing(generation, StoreFiles.snapshotName(generation))
        }
        for (index, journal) in journals.enumerated() where journal != generation + index {
            throw missing(generation + index, StoreFiles.journalName(journal))
        }
        if let marker, marker.generation > journals[journals.count - 1] {
            throw missing(marker.generation, "the last clean close (\(StoreFiles.closeMarker))")
        }
        return journals
    }

    /// Whether a file is an unfinished write: this store's `*.tmp` files, and the `.dat.nosync*` files that
    /// Foundation's atomic write used for `session.json` in earlier versions.
    private static func isTemporary(_ name: String) -> Bool {
        name.hasSuffix(".tmp") || name.hasPrefix(".dat.nosync")
    }

    /// Starts a new store: an empty journal 1 (its start record), then an empty snapshot 1, then the header, so that
    /// no snapshot is ever without its journal. A directory left by a creation that a crash interrupted (nothing but
    /// those empty files, no header) is created again.
    private static func create(in directory: String, io: any FileIO) throws -> StoreHeader {
        let names = try io.listDirectory(directory)
        let generations = StoreFiles.generations(in: names)
        let journalPath = directory + "/" + StoreFiles.journalName(1)
        let snapshotPath = directory + "/" + StoreFiles.snapshotName(1)
        let journal = try JournalFormat.newJournal(generation: 1, after: 0)
        let snapshot = try SnapshotFormat.encode([], generation: 1, sequence: 0)
        let existingJournal = try io.readFile(journalPath)
        let existingSnapshot = try io.readFile(snapshotPath)
        let onlyCreationFiles =
            generations.snapshots.isSubset(of: [1]) && generations.journals.isSubset(of: [1])
            && !names.contains("records.json") && (existingJournal ?? journal) == journal
            && (existingSnapshot ?? snapshot) == snapshot
        guard onlyCreationFiles else {
            throw DiaryError(.storageCorrupted, "the store at \(directory) has data files but no \(StoreFiles.header)")
        }
        let header = StoreHeader(
            format: StoreHeader.formatName, schemaVersion: FileStoreSchema.currentVersion, migrations: [])
        try io.writeAtomically(journal, to: journalPath)
        try io.writeAtomically(snapshot, to: snapshotPath)
        try FileStoreSchema.writeHeader(header, in: directory, io: io)
        return header
    }

    /// Removes snapshots and journals older than a durable snapshot generation.
    static func removeGenerations(below generation: Int, in directory: String, names: [String], io: any FileIO) throws {
        let generations = StoreFiles.generations(in: names)
        for old in generations.journals where old < generation {
            try io.removeFile(directory + "/" + StoreFiles.journalName(old))
        }
        for old in generations.snapshots where old < generation {
            try io.removeFile(directory + "/" + StoreFiles.snapshotName(old))
        }
    }

    /// Removes attachment files that no row refers to: uploads whose row was never written (a crash between the
    /// file and the transaction) and files whose row was deleted just before a crash.
    private static func removeOrphanAttachments(in directory: String, database: LocalDatabase, io: any FileIO) throws -> Int {
        let folder = directory + "/" + StoreFiles.attachments
        var removed = 0
        for name in try io.listDirectory(folder) {
            if name.hasSuffix(".tmp") {
                try io.removeFile(folder + "/" + name)
                continue
            }
            if let id = Attachment.ID(name), database.record(for: .attachment(id)) != nil { continue }
            try io.removeFile(folder + "/" + name)
            removed += 1
        }
        return removed
    }
}
