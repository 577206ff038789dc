@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import DiarySDKHTTP
import Foundation

/// Every repository on a local replica that answers at once, kept in step with a server whenever it can be reached.
///
/// The user's own entries live on the device: writing, editing, deleting, hiding and favouriting an entry, the
/// entry list, the calendar and the streak work offline and answer from the replica. Each local write is recorded in
/// a durable outbox in the same local transaction, and sent in order, with its idempotency key, when the server can
/// be reached; a sync then refreshes the replica from the server, and the server's live changes keep it current
/// while online. Ids chosen on the device are final, so an entry written offline keeps its id on the server.
///
/// Comments, likes and entries in books are the server's to decide: they are sent at once while it can be reached,
/// else checked on the device, queued in the outbox, and answered from the device. Reads the replica cannot answer
/// (the feed, comments, books, profiles…) go to the server, which sends the outbox first, and while it cannot be
/// reached they answer from its last answer to the same read, kept on the device, with the queued writes laid over
/// it. What only the server can decide (sign-in, search, availability checks, joining a book, follows, blocks,
/// reports, uploads) fails at once with `.unavailable` while the server is known to be unreachable.
/// docs/Offline.md lists every operation and the conflict policy.
///
/// ```swift
/// let backend = try OfflineBackend(configuration: .init(
///     directory: OfflineBackend.defaultDirectory, serverURL: URL(string: "https://diary.example.com")!))
/// let sdk = backend.repositories
/// let entry = try await sdk.diaries.write(DiaryDraft(title: "Subway", body: "Written offline."))
/// for await state in backend.syncStates() {
///     print("\(state.pendingWrites) waiting to sync")
/// }
/// ```
public final class OfflineBackend: Sendable {
    /// How an offline backend is set up.
    public struct Configuration: Sendable {
        /// The directory holding the replica (`replica/`), the sync state (`sync.json`) and, by default, the
        /// session (`session.json`).
        public var directory: URL
        /// The server: its address, the session store, timeouts and retries of each request.
        public var server: HTTPBackend.Configuration
        /// The replica's clock, ids and default time zone.
        public var environment: DiaryEnvironment
        /// When a write returns (see ``WriteAcknowledgement``).
        public var acknowledgement: WriteAcknowledgement
        /// The wait before retrying a server that could not be reached: the lower bound first, doubling up to the
        /// upper bound (with ±20% jitter).
        public var retryDelays: ClosedRange<TimeInterval>
        /// How often the entries are refreshed from the server while online, besides live changes.
        public var refreshInterval: TimeInterval

        /// Creates a configuration.
        /// - Parameters:
        ///   - directory: Where the replica and the sync state live.
        ///   - serverURL: The server's address.
        ///   - tokenStore: Where the session is kept; `session.json` in `directory` by default (on Apple platforms,
        ///     pass a keychain-backed store).
        ///   - acknowledgement: When a write returns; ``WriteAcknowledgement/local`` by default.
        ///   - retryDelays: Backoff bounds; 0.5 s to 60 s by default.
        ///   - refreshInterval: How often to refresh while online; 60 s by default.
        ///   - clock: The replica's clock.
        ///   - ids: The replica's id generator (ids chosen on the device are final: random v4 UUIDs).
        public init(
            directory: URL, serverURL: URL, tokenStore: (any SessionStore)? = nil,
            acknowledgement: WriteAcknowledgement = .local, retryDelays: ClosedRange<TimeInterval> = 0.5...60,
            refreshInterval: TimeInterval = 60, clock: any DiaryClock = SystemClock(),
            ids: any IDGenerator = RandomIDGenerator()
        ) {
            self.directory = directory
            self.server = HTTPBackend.Configuration(
                baseURL: serverURL,
                tokenStore: tokenStore ?? FileSessionStore(fileURL: directory.appendingPathComponent("session.json")))
            self.environment = DiaryEnvironment(clock: clock, ids: ids, defaultTimeZone: .current)
            self.acknowledgement = acknowledgement
            self.retryDelays = retryDelays
            self.refreshInterval = refreshInterval
        }
    }

    /// When a write to the replica returns.
    public enum WriteAcknowledgement: Hashable, Sendable {
        /// As soon as it is durable on the device (and in the outbox): the app's next read sees it, and it is sent
        /// in the background. A refusal by the server later shows as a ``SyncConflict``.
        case local
        /// When it is durable on the device and, if the server can be reached, the server answered it: a refusal
        /// is thrown to the caller (the replica already shows the server's version). Offline, it returns as
        /// ``local`` does and the write waits in the outbox.
        case serverWhenReachable
    }

    /// The configuration it was opened with.
    public let configuration: Configuration
    /// The replica: a file store holding the user's entries and their outbox.
    let replica: FileStoreBackend
    let outboxStorage: OutboxStorage
    let remote: HTTPBackend
    let sync: OfflineSync
    /// The posts, comments and entries the signed-in user last read from the server or changed offline (one user's at
    /// a time: what one user saw, as they saw it, is never shown to the next).
    private let seenValues = Locked(SeenValues(owner: nil))
    /// The server's last answers to reads the replica cannot answer, for reads while offline.
    let readCache: ReadCache
    private let engines = Locked<[User.ID: DiaryEngine]>([:])
    private let bundle = Locked<DiaryRepositories?>(nil)

    /// The default directory: `DiaryOffline` in Application Support on Apple platforms, or in
    /// `$XDG_DATA_HOME` (`~/.local/share`) elsewhere.
    public static var defaultDirectory: URL {
        FileStoreBackend.defaultDirectory.deletingLastPathComponent().appendingPathComponent("DiaryOffline", isDirectory: true)
    }

    /// Opens the replica in `configuration.directory` (creating it) and starts syncing for the session in the token
    /// store, if any.
    /// - Throws: ``DiaryError`` as ``FileStoreBackend`` does for a replica it cannot open. A damaged `sync.json` is
    ///   set aside (`sync.json.damaged`) and the sync starts over with a full refresh.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let directory = configuration.directory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw DiaryError(.unavailable, "the directory \(directory.path) could not be created", underlying: error)
        }
        replica = try FileStoreBackend(
            configuration: .init(
                directory: directory.appendingPathComponent("replica", isDirectory: true),
                clock: configuration.environment.clock, ids: configuration.environment.ids,
                defaultTimeZone: configuration.environment.defaultTimeZone))
        outboxStorage = OutboxStorage(base: replica.storage)
        readCache = ReadCache(directory: directory.appendingPathComponent("cache", isDirectory: true))
        remote = HTTPBackend(configuration: configuration.server)
        let metadata = SyncMetadataFile(url: directory.appendingPathComponent("sync.json"))
        let tokenStore = configuration.server.tokenStore
        sync = OfflineSync(
            replica: replica.storage, remote: remote.repositories, metadata: metadata,
            clock: configuration.environment.clock, retryDelays: configuration.retryDelays,
            refreshInterval: configuration.refreshInterval,
            keepsRefusals: configuration.acknowledgement == .serverWhenReachable, currentSession: { try? await tokenStore.load()?.userID })
        let sync = self.sync
        Task {
            await sync.start()
            // Unless the app signed someone in or out first.
            await sync.launch(as: try? await tokenStore.load()?.userID)
        }
    }

    /// The repositories; the same bundle every time.
    public var repositories: DiaryRepositories {
        bundle.withLock { bundle in
            if let bundle { return bundle }
            let context = OfflineContext(backend: self)
            let made = DiaryRepositories(
                accounts: OfflineAccounts(context: context), users: OfflineUsers(context: context),
                attachments: OfflineAttachments(
                    context: context,
                    online: OnlineAttachmentRepository(remote: remote.repositories.attachments, link: context)),
                diaries: OfflineDiaries(context: context),
                books: OnlineBookRepository(remote: remote.repositories.books, link: context),
                posts: OfflinePosts(
                    context: context, online: OnlinePostRepository(remote: remote.repositories.posts, link: context)),
                comments: OfflineComments(
                    context: context, online: OnlineCommentRepository(remote: remote.repositories.comments, link: context)),
                social: OnlineSocialRepository(remote: remote.repositories.social, link: context),
                notifications: OnlineNotificationRepository(remote: remote.repositories.notifications, link: context),
                blogs: OfflineBlogs(
                    context: context, online: OnlineBlogRepository(remote: remote.repositories.blogs, link: context)),
                changes: remote.repositories.changes)
            bundle = made
            return made
        }
    }

    /// The sync's state now.
    public var syncState: SyncState {
        get async { await sync.current }
    }

    /// The sync's state, first as it is and then at every change.
    public func syncStates() -> AsyncStream<SyncState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncState.self, bufferingPolicy: .bufferingNewest(16))
        let sync = self.sync
        let forwarding = Task {
            for await state in await sync.subscribe() { continuation.yield(state) }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }

    /// Syncs now and waits: sends every pending write and refreshes the entries from the server.
    /// - Throws: What stopped it: `.unavailable` when the server cannot be reached (the writes stay queued).
    public func sync() async throws {
        try await sync.syncNow()
    }

    /// Forgets the conflicts up to and including the one with `id` (after the app showed them).
    public func clearConflicts(through id: Int) async throws {
        try await sync.clearConflicts(through: id)
    }

    /// Stops syncing and closes the replica. Pending writes stay in the outbox for the next launch.
    public func close() async throws {
        await sync.stop()
        try await replica.close()
    }

    /// The values `userID` last saw; a new, empty set when another user's were kept until now.
    func seen(for userID: User.ID?) -> SeenValues {
        seenValues.withLock { current in
            if current.owner != userID { current = SeenValues(owner: userID) }
            return current
        }
    }

    /// The replica's engine acting as `userID`, over the outbox storage.
    func engine(for userID: User.ID) -> DiaryEngine {
        engines.withLock { engines in
            if let engine = engines[userID] { return engine }
            let engine = DiaryEngine(
                store: outboxStorage, environment: configuration.environment, configuration: .init(),
                actingAs: userID)
            engines[userID] = engine
            return engine
        }
    }
}
