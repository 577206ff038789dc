@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// A complete backend that keeps its data as JSON files in a directory: the embedded default for apps that work
/// offline, the example programs and the reference server.
///
/// Every write is durable when it returns (a write-ahead journal, flushed), survives `kill -9` and power loss, and
/// costs about the same however large the store is, during a compaction too (what it copies grows with log₃₂ of
/// the store's size; docs/PERFORMANCE.md has the figures); snapshots are compacted in the background. Attachments are files
/// named by UUID in `attachments/`. One process at a time may open a directory (a file lock); within a process
/// any number of tasks may use it. docs/FileStoreFormat.md documents the files.
///
/// ```swift
/// let backend = try FileStoreBackend(configuration: .init(directory: FileStoreBackend.defaultDirectory))
/// let sdk = backend.repositories
/// if try await sdk.accounts.restoreSession() == nil {
///     _ = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
/// }
/// _ = try await sdk.diaries.write(DiaryDraft(body: "Learned how fsync works today."))
/// try await backend.close()
/// ```
public final class FileStoreBackend: Sendable {
    /// Where and how the backend stores its data.
    public struct Configuration: Sendable {
        /// The directory holding the store; created when missing.
        public var directory: URL
        /// Clock, ids and default time zone.
        public var environment: DiaryEnvironment
        /// Engine settings.
        public var engine: DiaryEngine.Configuration
        /// The smallest journal size, in bytes, that triggers a compaction into a new snapshot. The journal may
        /// grow to the size of the last snapshot before compacting, whichever is larger.
        public var minimumCompactionBytes: Int
        /// How many committed transactions the change log keeps in memory for change streams that resume after a
        /// position (``ChangeFeed/changes(_:after:)``). The log starts empty at each open: a position saved before
        /// the store was last opened is answered with ``ChangeEvent/reloadRequired(_:)``.
        public var changeLogRetention: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - directory: The store's directory; ``FileStoreBackend/defaultDirectory`` for the per-user default.
        ///   - clock: The clock; the system clock by default.
        ///   - ids: The id generator; random by default.
        ///   - defaultTimeZone: The zone for users without one; the device's by default.
        ///   - engine: Engine settings (100,000 PBKDF2 iterations by default).
        ///   - minimumCompactionBytes: The journal size that triggers compaction; 4 MiB by default.
        ///   - changeLogRetention: How many committed transactions change streams can resume across; 1,000 by
        ///     default.
        public init(
            directory: URL, clock: any DiaryClock = SystemClock(), ids: any IDGenerator = RandomIDGenerator(),
            defaultTimeZone: TimeZone = .current, engine: DiaryEngine.Configuration = .init(),
            minimumCompactionBytes: Int = 4 << 20, changeLogRetention: Int = 1_000
        ) {
            self.directory = directory
            self.environment = DiaryEnvironment(clock: clock, ids: ids, defaultTimeZone: defaultTimeZone)
            self.engine = engine
            self.minimumCompactionBytes = minimumCompactionBytes
            self.changeLogRetention = changeLogRetention
        }
    }

    /// The configuration it was opened with.
    public let configuration: Configuration
    let store: FileDiaryStore
    private let defaultSessionStore: any SessionStore
    private let defaultRepositories = Locked<DiaryRepositories?>(nil)

    /// Opens the store in the configured directory, creating it when empty, migrating it when it was written by an
    /// older version, and recovering from a crash (see ``openReport``).
    /// - Parameters:
    ///   - configuration: The directory, clock, ids and engine settings.
    ///   - sessionStore: Where ``repositories``' session is kept; by default a ``FileSessionStore`` at
    ///     `session.json` in the directory (replaced durably, like the store's own files).
    /// - Throws: ``DiaryError``: `.conflict` when another process has the store open; `.storageCorrupted` when a
    ///   file fails its checks (the message names the file and byte offset) or the store was written by a newer
    ///   version; `.unavailable` when the directory cannot be created, read or written (the message has the
    ///   system's reason). Nothing is deleted or rewritten to recover from these.
    public convenience init(configuration: Configuration, sessionStore: (any SessionStore)? = nil) throws {
        try self.init(configuration: configuration, sessionStore: sessionStore, io: POSIXFileIO())
    }

    /// Opens the store with a given file-I/O implementation (tests inject failures through it).
    init(configuration: Configuration, sessionStore: (any SessionStore)?, io: any FileIO) throws {
        self.configuration = configuration
        let directory = configuration.directory.standardizedFileURL.path
        self.store = try FileDiaryStore(
            directory: directory, io: io, minimumCompactionBytes: max(1, configuration.minimumCompactionBytes),
            now: configuration.environment.clock.now(), changeLogRetention: configuration.changeLogRetention)
        self.defaultSessionStore =
            sessionStore ?? FileSessionStore(fileURL: URL(fileURLWithPath: directory + "/" + StoreFiles.session))
    }

    /// What opening found and did: a torn journal tail cut off, migrations run, orphan files removed.
    public var openReport: FileStoreOpenReport { store.report }

    /// The store under the engine, through the storage contract: for code that composes this store into another
    /// backend (the offline backend keeps its replica here) or runs the storage conformance checks on it.
    @_spi(Storage)
    public var storage: any DiaryStorage { store }

    /// Acknowledges a loss of acknowledged records that an open reported (``FileStoreOpenReport/isClean`` false), so
    /// that opens clean up orphan attachment files again.
    ///
    /// After such a loss every open keeps every attachment file and reports
    /// ``FileStoreOpenReport/isOrphanSweepSuspended``: a lost row may be the one that referred to a file the app still
    /// wants. Call this once the app has restored what it could (or decided not to); the next open then removes the
    /// files no row refers to. It changes nothing on this open, and nothing when no loss is waiting.
    /// - Throws: ``DiaryError`` `.unavailable` when the backend is closed or the marker file cannot be removed.
    public func acknowledgeDataLoss() async throws {
        try await store.acknowledgeDataLoss()
    }

    /// How the background compaction is doing: failures in a row and the last one's reason.
    public var compactionStatus: FileStoreCompactionStatus { store.state.withLock { $0.compactionStatus } }

    /// The app's repositories: one signed-out device whose session lives in the backend's session store.
    public var repositories: DiaryRepositories {
        defaultRepositories.withLock { cached in
            if let cached { return cached }
            let made = makeRepositories(sessionStore: defaultSessionStore)
            cached = made
            return made
        }
    }

    /// A new, signed-out device sharing this backend's data.
    /// - Parameter sessionStore: Where the device keeps its session; in memory by default.
    /// - Returns: The device's repositories.
    public func makeRepositories(sessionStore: any SessionStore = InMemorySessionStore()) -> DiaryRepositories {
        DiaryEngine(
            store: store, environment: configuration.environment, configuration: configuration.engine,
            sessionStore: sessionStore
        ).repositories
    }

    /// Repositories that act as one user, with no session to manage: what a server does per request.
    /// - Parameter userID: The user.
    /// - Returns: Repositories bound to that user.
    public func repositories(signedInAs userID: User.ID) -> DiaryRepositories {
        engine(actingAs: userID).repositories
    }

    /// The engine acting as one user, or signed out when `userID` is `nil`: what a server uses to run a request,
    /// including ``DiaryEngine/createAccount(_:)`` and ``DiaryEngine/authenticate(_:)`` before anyone is signed in.
    /// - Parameter userID: The user, or `nil`.
    /// - Returns: The engine.
    @_spi(Engine)
    public func engine(actingAs userID: User.ID?) -> DiaryEngine {
        DiaryEngine(
            store: store, environment: configuration.environment, configuration: configuration.engine, actingAs: userID)
    }

    /// Waits for running writes and compaction, then closes the files and releases the directory's lock, so
    /// another process may open it. Change streams end. Every later call throws `.unavailable`.
    /// - Throws: ``DiaryError`` `.unavailable` when the backend is already closed.
    public func close() async throws {
        try await store.close()
    }
}
