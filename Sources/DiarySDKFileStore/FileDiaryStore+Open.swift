import DiarySDK
import Foundation

extension FileDiaryStore {
    struct Opened {
        var state: State
        var report: FileStoreOpenReport
        var lockDescriptor: Int32
    }

    /// Opens a store directory: refuses a newer schema before touching anything, takes the lock, creates or
    /// migrates the store, loads the newest snapshot, replays the journals after it (cutting off a torn tail on the
    /// last one), then removes superseded generations, temporary files and orphan attachment files.
    /// - Throws: ``DiaryError`` `.conflict` when another process holds the store, `.storageCorrupted` for damaged
    ///   files (naming the file and byte offset) or a newer schema, `.unavailable` for I/O failures.
    static func open(directory: String, io: any FileIO, now: Date) throws -> Opened {
        do {
            return try openUnmapped(directory: directory, io: io, now: now)
        } catch let error as FileIOError {
            throw error.diaryError
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
            guard try io.lockExclusively(lockDescriptor, path: lockPath) else {
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
        report.migrations = try FileStoreSchema.migrate(header, in: directory, io: io, now: now).1
        try io.makeDirectory(directory + "/" + StoreFiles.attachments)

        var names = try io.listDirectory(directory)
        for name in names where isTemporary(name) { try io.removeFile(directory + "/" + name) }
        names.removeAll(where: isTemporary)
        let generations = StoreFiles.generations(in: names)
        guard let generation = generations.snapshots.max() else {
            throw DiaryError(.storageCorrupted, "the store at \(directory) has no snapshot file")
        }
        report.generation = generation
        let snapshotName = StoreFiles.snapshotName(generation)
        guard let snapshotData = try io.readFile(directory + "/" + snapshotName) else {
            throw DiaryError(.storageCorrupted, "the snapshot \(snapshotName) disappeared while opening")
        }
        var database = DiaryDatabase()
        try SnapshotFormat.decode(snapshotData, file: directory + "/" + snapshotName) { records in
            database.put(contentsOf: records)
        }

        let journals = generations.journals.filter { $0 >= generation }.sorted()
        if let first = journals.first, first != generation {
            throw DiaryError(.storageCorrupted, "the store at \(directory) is missing \(StoreFiles.journalName(generation))")
        }
        for (index, journal) in journals.enumerated() where journal != generation + index {
            throw DiaryError(.storageCorrupted, "the store at \(directory) is missing \(StoreFiles.journalName(journal - 1))")
        }
        let lastGeneration = journals.last ?? generation
        if journals.isEmpty { try io.createEmptyFile(directory + "/" + StoreFiles.journalName(generation)) }
        var sequence: UInt64 = 0
        var lastLength = 0
        let decoder = JSONDecoder.diary()
        for journal in journals {
            let path = directory + "/" + StoreFiles.journalName(journal)
            let data = try io.readFile(path) ?? Data()
            let scan = try JournalFormat.scan(data, file: path, allowTornTail: journal == lastGeneration)
            for (payload, offset) in zip(scan.payloads, scan.offsets) {
                let transaction: JournalTransaction
                do {
                    transaction = try decoder.decode(JournalTransaction.self, from: payload)
                } catch {
                    throw DiaryError(
                        .storageCorrupted, "the journal \(path) has an unreadable record at byte offset \(offset)",
                        underlying: error)
                }
                transaction.apply(to: &database)
                sequence = max(sequence, transaction.sequence)
                report.replayedTransactions += 1
            }
            if scan.tornBytes > 0 {
                report.recoveredTornTail = true
                report.tornJournalFile = path
                report.discardedBytes = scan.tornBytes
            }
            lastLength = scan.validLength
        }

        let journalPath = directory + "/" + StoreFiles.journalName(lastGeneration)
        let descriptor = try io.openFile(journalPath, create: false)
        do {
            if report.recoveredTornTail {
                try io.truncate(descriptor, to: lastLength, path: journalPath)
                try io.sync(descriptor, path: journalPath)
            }
            try removeGenerations(below: generation, in: directory, names: names, io: io)
            report.removedOrphanAttachments = try removeOrphanAttachments(in: directory, database: database, io: io)
        } catch {
            io.close(descriptor)
            throw error
        }
        let journal = Journal(generation: lastGeneration, path: journalPath, descriptor: descriptor, length: lastLength)
        let state = State(database: database, journal: journal, sequence: sequence, snapshotBytes: snapshotData.count)
        return (state, report)
    }

    /// Whether a file is an unfinished write: this store's `*.tmp` files, and the `.dat.nosync*` files that
    /// Foundation's atomic write used for `session.json` in earlier versions.
    private static func isTemporary(_ name: String) -> Bool {
        name.hasSuffix(".tmp") || name.hasPrefix(".dat.nosync")
    }

    /// Starts a new store: the header, an empty snapshot and an empty journal of generation 1.
    private static func create(in directory: String, io: any FileIO) throws -> StoreHeader {
        let names = try io.listDirectory(directory)
        let generations = StoreFiles.generations(in: names)
        guard generations.snapshots.isEmpty, generations.journals.isEmpty, !names.contains("records.json") else {
            throw DiaryError(.storageCorrupted, "the store at \(directory) has data files but no \(StoreFiles.header)")
        }
        let header = StoreHeader(
            format: StoreHeader.formatName, schemaVersion: FileStoreSchema.currentVersion, migrations: [])
        try FileStoreSchema.writeHeader(header, in: directory, io: io)
        try io.writeAtomically(try SnapshotFormat.encode([], generation: 1), to: directory + "/" + StoreFiles.snapshotName(1))
        try io.createEmptyFile(directory + "/" + StoreFiles.journalName(1))
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
    private static func removeOrphanAttachments(in directory: String, database: DiaryDatabase, io: any FileIO) throws -> Int {
        let folder = directory + "/" + StoreFiles.attachments
        var removed = 0
        for name in try io.listDirectory(folder) {
            if name.hasSuffix(".tmp") {
                try io.removeFile(folder + "/" + name)
                continue
            }
            if let id = Attachment.ID(name), database.attachments[id] != nil { continue }
            try io.removeFile(folder + "/" + name)
            removed += 1
        }
        return removed
    }
}
