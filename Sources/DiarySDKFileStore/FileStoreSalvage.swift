@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// A damaged file store read up to its first damage, so a user can save what is readable.
///
/// ``FileStoreBackend`` refuses a store whose journal is damaged anywhere but at its very end (`.storageCorrupted`,
/// naming the file and byte offset), and changes nothing. `FileStoreSalvage` opens such a store read-only: it loads
/// the newest snapshot and replays the journals' records in order up to the first one that is damaged, missing or out
/// of sequence, and stops there. It writes nothing at all: no lock file, no cut-off tail, no migration, no clean-up,
/// no session refresh. Reads answer as of the last readable record; every write throws `.forbidden`.
///
/// ```swift
/// let salvage = try FileStoreSalvage(directory: url)
/// if let damage = salvage.report.damage { print("read up to the damage: \(damage)") }
/// let entries = try await salvage.repositories.diaries.entries(DiaryQuery(includeHidden: true), page: .first())
/// ```
///
/// Open it only while no ``FileStoreBackend`` has the directory open (it takes no lock, so it cannot tell).
public final class FileStoreSalvage: Sendable {
    /// What the salvage read, and where it stopped.
    public struct Report: Sendable, Hashable {
        /// The first damage found (the file and byte offset), or `nil` when the whole store was readable.
        public var damage: String?
        /// The snapshot generation loaded.
        public var generation = 0
        /// How many journal records (committed transactions) were replayed on top of the snapshot before the damage.
        public var replayedTransactions = 0
        /// Journal files after the damage, which were not read.
        public var unreadJournals: [String] = []

        /// Creates an empty report.
        public init() {}
    }

    /// What was read and where it stopped.
    public let report: Report
    /// The directory read.
    public let directory: URL
    private let storage: SalvagedStorage
    private let environment: DiaryEnvironment
    private let engineConfiguration: DiaryEngine.Configuration

    /// Reads the store in `directory` up to its first damage.
    /// - Parameters:
    ///   - directory: The store's directory.
    ///   - environment: Clock, ids and default time zone for the engine that answers reads.
    ///   - engine: Engine settings.
    /// - Throws: ``DiaryError`` `.storageCorrupted` when there is no store, it was written by a newer version or an
    ///   older schema (open it with ``FileStoreBackend`` first), or its newest snapshot is unreadable; `.unavailable`
    ///   when a file cannot be read.
    public convenience init(
        directory: URL, environment: DiaryEnvironment = DiaryEnvironment(), engine: DiaryEngine.Configuration = .init()
    ) throws {
        try self.init(directory: directory, environment: environment, engine: engine, io: POSIXFileIO())
    }

    init(directory: URL, environment: DiaryEnvironment, engine: DiaryEngine.Configuration, io: any FileIO) throws {
        let path = directory.standardizedFileURL.path
        let (database, report): (LocalDatabase, Report)
        do {
            (database, report) = try Self.load(directory: path, io: io)
        } catch let error as FileIOError {
            throw error.diaryError
        }
        self.report = report
        self.directory = directory
        self.storage = SalvagedStorage(database: database, directory: path, io: io)
        self.environment = environment
        self.engineConfiguration = engine
    }

    /// Read-only repositories, signed in as the store's saved session (`session.json`) if there is one. Restoring
    /// the session writes nothing back.
    public var repositories: DiaryRepositories {
        let saved = FileSessionStore(fileURL: directory.appendingPathComponent(StoreFiles.session))
        return DiaryEngine(
            store: storage, environment: environment, configuration: engineConfiguration,
            sessionStore: ReadOnlySessionStore(base: saved)
        ).repositories
    }

    /// Read-only repositories acting as one user.
    /// - Parameter userID: The user.
    /// - Returns: Repositories bound to that user.
    public func repositories(signedInAs userID: User.ID) -> DiaryRepositories {
        DiaryEngine(store: storage, environment: environment, configuration: engineConfiguration, actingAs: userID)
            .repositories
    }

    // MARK: - Reading

    private static func load(directory: String, io: any FileIO) throws -> (LocalDatabase, Report) {
        guard let header = try FileStoreSchema.readHeader(in: directory, io: io) else {
            throw DiaryError(.storageCorrupted, "there is no file store at \(directory)")
        }
        try FileStoreSchema.checkSupported(header, directory: directory)
        guard header.schemaVersion >= FileStoreSchema.rowsLayoutVersion else {
            throw DiaryError(
                .storageCorrupted,
                "the store at \(directory) has schema \(header.schemaVersion); salvage reads schema "
                    + "\(FileStoreSchema.rowsLayoutVersion) and later")
        }
        var report = Report()
        let generations = StoreFiles.generations(in: try io.listDirectory(directory))
        var database = LocalDatabase(indexingPostText: true)
        let newest = try NewestSnapshot(
            in: directory, snapshots: generations.snapshots, io: io, while: "reading", into: &database)
        let generation = newest.generation
        report.generation = generation

        var replay = JournalReplay(after: newest.header.sequence, of: newest.path)
        let journals = generations.journals.filter { $0 >= generation }.sorted()
        for (index, journal) in journals.enumerated() {
            let path = directory + "/" + StoreFiles.journalName(journal)
            func stop(_ damage: String) {
                report.damage = damage
                report.unreadJournals = journals[(index + 1)...].map(StoreFiles.journalName)
            }
            guard journal == generation + index else {
                stop("the store at \(directory) is missing \(StoreFiles.journalName(generation + index))")
                report.unreadJournals.insert(StoreFiles.journalName(journal), at: 0)
                break
            }
            guard let data = try io.readFile(path) else {
                stop("the journal \(path) disappeared while reading")
                break
            }
            let intact = intactPrefix(of: data)
            do {
                _ = try replay.replay(
                    data.prefix(intact.length), path: path, generation: journal, isLast: false, into: &database)
            } catch let error as DiaryError {
                stop(error.message)
                break
            }
            if intact.isDamaged {
                stop("the journal \(path) is damaged at byte offset \(intact.length)")
                break
            }
        }
        report.replayedTransactions = replay.replayed
        return (database, report)
    }

    /// The length of a journal's intact records from its start, and whether anything but reserved zero bytes
    /// follows them (``JournalFormat`` describes the framing).
    static func intactPrefix(of data: Data) -> (length: Int, isDamaged: Bool) {
        data.withUnsafeBytes { (whole: UnsafeRawBufferPointer) in
            let end = JournalFormat.contentEnd(of: whole)
            var offset = 0
            while offset + JournalFormat.headerSize <= end {
                func uint32(_ at: Int) -> UInt32 {
                    UInt32(whole[at]) | UInt32(whole[at + 1]) << 8 | UInt32(whole[at + 2]) << 16 | UInt32(whole[at + 3]) << 24
                }
                let length = Int(uint32(offset))
                let payloadStart = offset + JournalFormat.headerSize
                guard length > 0, length <= JournalFormat.maximumPayload, payloadStart + length <= end,
                    CRC32.checksum(UnsafeRawBufferPointer(rebasing: whole[payloadStart..<(payloadStart + length)]))
                        == uint32(offset + 4)
                else { break }
                offset = payloadStart + length
            }
            return (offset, offset < end)
        }
    }
}

/// A ``DiaryStorage`` over a database read once: reads answer from it, writes are refused.
private final class SalvagedStorage: DiaryStorage {
    let database: LocalDatabase
    let directory: String
    let io: any FileIO

    init(database: LocalDatabase, directory: String, io: any FileIO) {
        self.database = database
        self.directory = directory
        self.io = io
    }

    var readOnly: DiaryError {
        DiaryError(.forbidden, "the store at \(directory) is open read-only, to save what is readable before its damage")
    }

    func read<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageReader) async throws -> Result
    ) async throws -> Result {
        try await body(LocalSnapshot(database))
    }

    func write<Result: Sendable>(
        _ operation: String, _ body: @Sendable (any StorageTransaction) async throws -> Result
    ) async throws -> Result {
        throw readOnly
    }

    func saveBlob(_ data: Data, for id: Attachment.ID) async throws {
        throw readOnly
    }

    func blob(for id: Attachment.ID) async throws -> Data {
        do {
            guard let data = try io.readFile(directory + "/" + StoreFiles.attachments + "/" + id.description) else {
                throw DiaryError.notFound("attachment \(id)")
            }
            return data
        } catch let error as FileIOError {
            throw error.diaryError
        }
    }

    func committedChanges(after position: ChangePosition?) -> AsyncStream<ChangeLogEvent> {
        // Nothing is ever committed to a salvaged store: its log stays at its start, and a stream of it stays open.
        log.subscribe(after: position)
    }

    private let log = ChangeLog(retention: 1)
}

/// A session store that reads another and never writes to it.
private struct ReadOnlySessionStore: SessionStore {
    let base: any SessionStore

    func load() async throws -> StoredSession? {
        try await base.load()
    }

    func save(_ session: StoredSession?) async throws {}
}
