import Foundation

/// The one implementation of every repository protocol over a local store: all rules run here.
///
/// You do not create an engine yourself: a backend hands you one, bound to a session (`InMemoryBackend`,
/// `FileStoreBackend`), or bound to one user for a server request (`@_spi(Engine)`: `FileStoreBackend.engine(actingAs:)`,
/// `InMemoryBackend.engine(actingAs:)`).
/// Because the in-memory store, the file store and the reference server all run this engine, a rule holds for
/// every backend or for none.
public final class DiaryEngine: Sendable {
    /// How an engine behaves.
    public struct Configuration: Sendable {
        /// PBKDF2 iterations for new password hashes. Lower it only in tests.
        public var passwordHashIterations: Int
        /// Verifies external identity tokens; without one, identity-token sign-in is refused.
        public var identityTokenVerifier: (any IdentityTokenVerifier)?
        /// Derives password hashes; PBKDF2 on the shared ``HashingPool`` by default, never on the concurrency pool.
        public var passwordHasher: any PasswordHasher

        /// Creates a configuration.
        /// - Parameters:
        ///   - passwordHashIterations: PBKDF2 iterations; 100,000 by default.
        ///   - identityTokenVerifier: The verifier for external sign-in.
        ///   - passwordHasher: The hasher; ``PBKDF2PasswordHasher`` on ``HashingPool/shared`` by default.
        public init(
            passwordHashIterations: Int = 100_000, identityTokenVerifier: (any IdentityTokenVerifier)? = nil,
            passwordHasher: any PasswordHasher = PBKDF2PasswordHasher()
        ) {
            self.passwordHashIterations = passwordHashIterations
            self.identityTokenVerifier = identityTokenVerifier
            self.passwordHasher = passwordHasher
        }
    }

    /// Who the engine acts as.
    package enum Principal: Sendable {
        /// The app's signed-in session, persisted in a session store.
        case session(SessionContext)
        /// A fixed user, as a server does for one authenticated request.
        case fixed(User.ID)
    }

    package let store: any DiaryStorage
    package let environment: DiaryEnvironment
    package let configuration: Configuration
    package let principal: Principal
    /// Writes in flight, so identical ones made at once by the same user are joined (``write(_:joining:body:)``).
    private let writesInFlight = LeadingCalls<JoinedWrite, any Sendable>()

    package init(
        store: any DiaryStorage, environment: DiaryEnvironment, configuration: Configuration, principal: Principal
    ) {
        self.store = store
        self.environment = environment
        self.configuration = configuration
        self.principal = principal
    }

    /// An engine for an app on a device: it acts as whoever signs in, and keeps the session in `sessionStore`.
    /// What every local backend's `makeRepositories(sessionStore:)` returns.
    package convenience init(
        store: any DiaryStorage, environment: DiaryEnvironment, configuration: Configuration, sessionStore: any SessionStore
    ) {
        self.init(
            store: store, environment: environment, configuration: configuration,
            principal: .session(SessionContext(store: sessionStore)))
    }

    /// An engine that acts as one user, as a server does per request, or is signed out (with a session kept in
    /// memory) when `userID` is `nil`. What every local backend's `engine(actingAs:)` returns.
    package convenience init(
        store: any DiaryStorage, environment: DiaryEnvironment, configuration: Configuration, actingAs userID: User.ID?
    ) {
        self.init(
            store: store, environment: environment, configuration: configuration,
            principal: userID.map { .fixed($0) } ?? .session(SessionContext(store: InMemorySessionStore())))
    }

    /// The repositories this engine implements, as a bundle.
    @_spi(Engine)
    public var repositories: DiaryRepositories {
        DiaryRepositories(
            accounts: self, users: self, attachments: self, diaries: self, books: self, posts: self, comments: self,
            social: self, notifications: self, blogs: self, changes: self)
    }

    // MARK: - Helpers shared by the repository extensions

    /// The acting user's id, or `.unauthenticated`.
    package func requireUserID() throws -> User.ID {
        switch principal {
        case .fixed(let id):
            return id
        case .session(let context):
            guard let id = context.userID else { throw DiaryError.notSignedIn }
            return id
        }
    }

    package var now: Date { environment.clock.now() }

    package func newID<Entity>(_: Entity.Type = Entity.self) -> EntityID<Entity> {
        EntityID(environment.ids.next())
    }

    /// Reads as the signed-in user, checking that the account still exists.
    /// - Parameter keys: Rows the body will read, read with the viewer's own in one batched read
    ///   (``Viewer/prefetched``).
    package func read<Result: Sendable>(
        _ operation: String, prefetching keys: [RecordKey] = [],
        _ body: @escaping @Sendable (any StorageReader, Viewer) async throws -> Result
    ) async throws -> Result {
        let viewer = try requireUserID()
        return try await store.read(operation) { db in
            guard let loaded = try await Viewer.load(signedIn: viewer, prefetching: keys, in: db) else {
                throw DiaryError(.unauthenticated, "the signed-in account no longer exists")
            }
            return try await body(db, loaded)
        }
    }

    /// Writes as the signed-in user, checking that the account still exists.
    package func write<Result: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (any StorageTransaction, Viewer) async throws -> Result
    ) async throws -> Result {
        let actor = try requireUserID()
        return try await store.write(operation) { transaction in
            guard let loaded = try await Viewer.load(signedIn: actor, in: transaction) else {
                throw DiaryError(.unauthenticated, "the signed-in account no longer exists")
            }
            return try await body(transaction, loaded)
        }
    }

    /// Writes as the signed-in user, joining an identical write still in flight: the same operation by the same
    /// user with equal arguments (a double-tapped button) runs once, and every caller gets its result, as on
    /// ``DiaryRepositories`` over HTTP. The same write made after the first has returned runs again.
    /// - Parameters:
    ///   - operation: The operation's name, as for ``write(_:_:)``.
    ///   - arguments: Everything the caller passed that decides what the write does.
    ///   - body: The write.
    package func write<Result: Sendable>(
        _ operation: String, joining arguments: any Hashable & Sendable...,
        body: @escaping @Sendable (any StorageTransaction, Viewer) async throws -> Result
    ) async throws -> Result {
        let key = JoinedWrite(operation: operation, actor: try requireUserID(), arguments: arguments)
        let value = try await writesInFlight.run(key: key) { try await self.write(operation, body) }
        guard let result = value as? Result else {
            throw DiaryError(.server, "two writes named \(operation) return different types")
        }
        return result
    }

    /// The time zone a user's days are counted in.
    package func timeZone(of userID: User.ID, in db: any StorageReader) async throws -> TimeZone {
        timeZone(of: try await db.user(userID))
    }

    /// The signed-in user's time zone, from the row the request read.
    package func timeZone(of actor: Viewer, in db: any StorageReader) async throws -> TimeZone {
        if let account = actor.account { return timeZone(of: account) }
        return try await timeZone(of: actor.id, in: db)
    }

    private func timeZone(of user: User?) -> TimeZone {
        user?.settings?.timeZoneIdentifier.flatMap(TimeZone.init(identifier:)) ?? environment.defaultTimeZone
    }

    /// Checks that every image was uploaded by `owner`.
    package static func checkImages(_ images: [ImageReference], owner: User.ID, in db: any StorageReader) async throws {
        try Validation.images(images)
        for image in images {
            guard let attachment = try await db.attachment(image.id), attachment.ownerID == owner else {
                throw DiaryError.invalid("images", .invalidReference, "image \(image.id) is not one of your uploads")
            }
        }
    }

    /// Removes attachments no longer referenced by anything their owner wrote.
    package static func removeUnreferencedAttachments(
        _ candidates: some Sequence<Attachment.ID>, in transaction: any StorageTransaction
    ) async throws {
        for id in Set(candidates) {
            guard let attachment = try await transaction.attachment(id) else { continue }
            let owner = attachment.ownerID
            let inEntry = try await transaction.rows(StorageSchema.diariesByImage, equalTo: id)
                .contains { $0.authorID == owner }
            let inPost = try await transaction.rows(StorageSchema.postsByImage, equalTo: id)
                .contains { $0.authorID == owner }
            let isAvatar = try await transaction.user(owner)?.avatar?.id == id
            if !inEntry && !inPost && !isAvatar { try await transaction.remove(.attachment(id)) }
        }
    }

    /// Adds a notification when the recipient wants it and may see who caused it.
    ///
    /// `actor` is `nil` when nobody caused it (a turn that passed because its holder left). An anonymous actor is
    /// checked like anonymous content (``AccessPolicy/canSeeAnonymous(by:viewer:)``), never against the
    /// recipient's user blocks, which would tell the recipient who acted.
    package func notify(
        _ recipient: User.ID, _ kind: NotificationKind, actor: User.ID?, anonymous: Bool = false,
        bookID: DiaryBook.ID? = nil, diaryID: Diary.ID? = nil, postID: Post.ID? = nil, commentID: Comment.ID? = nil,
        in transaction: any StorageTransaction
    ) async throws {
        guard recipient != actor, let user = try await transaction.user(recipient),
            (user.settings ?? UserSettings()).notifications.contains(kind)
        else { return }
        if let actor {
            let reachable =
                anonymous
                ? try await !transaction.contains(.anonymousBlock(recipient, actor))
                : try await !AccessPolicy.blockedEitherWay(recipient, actor, in: transaction)
            guard reachable else { return }
        }
        let record = NotificationRecord(
            id: newID(), recipientID: recipient, kind: kind, actorID: anonymous ? nil : actor,
            anonymousActorID: anonymous ? actor : nil, bookID: bookID, diaryID: diaryID, postID: postID,
            commentID: commentID, createdAt: now, isRead: false)
        try await transaction.put(.notification(record))
    }
}

/// The signed-in session of an app's engine: the user and the token, kept in a ``SessionStore``.
///
/// Whatever must end with a session (a change stream) watches it: ``set(_:)`` ends every watcher of the session it
/// replaces at the moment it replaces it, so nothing opened under a session outlives it, however the end races.
package final class SessionContext: Sendable {
    private struct State {
        var session: StoredSession?
        var watchers: [UUID: Watcher] = [:]
    }

    private struct Watcher {
        var accessToken: String
        var end: @Sendable () -> Void
    }

    private let state = Locked(State())
    package let store: any SessionStore
    /// The session's auth state and its subscribers (``AccountRepository/authStates()``).
    package let authStates = AuthStateBroadcaster()
    /// Serialises reading the user back after a profile edit and publishing it, so the last publication is of the
    /// newest committed profile whatever order the edits' callers resume in.
    package let profileAnnouncements = WriterQueue()

    package init(store: any SessionStore) {
        self.store = store
    }

    package var userID: User.ID? { state.current.session?.userID }
    package var session: StoredSession? { state.current.session }

    /// Replaces the session, and announces the change of who is signed in (if any) in the same step, so the
    /// auth-state stream follows the session's changes in the order they happen.
    package func set(_ session: StoredSession?, announcing announcement: AuthStateBroadcaster.Announcement? = nil) async throws {
        let ended = state.withLock { state -> [Watcher] in
            state.session = session
            if let announcement { authStates.announce(announcement) }
            let ended = state.watchers.filter { $0.value.accessToken != session?.accessToken }
            for id in ended.keys { state.watchers[id] = nil }
            return Array(ended.values)
        }
        for watcher in ended { watcher.end() }
        try await store.save(session)
    }

    /// Calls `end` once when the session holding `accessToken` ends, or at once when it already has.
    /// - Parameter id: The watcher, for ``stopWatching(_:)``.
    package func watch(_ id: UUID, accessToken: String, end: @escaping @Sendable () -> Void) {
        let current = state.withLock { state -> Bool in
            guard state.session?.accessToken == accessToken else { return false }
            state.watchers[id] = Watcher(accessToken: accessToken, end: end)
            return true
        }
        if !current { end() }
    }

    /// Forgets a watcher whose work ended on its own.
    package func stopWatching(_ id: UUID) {
        state.withLock { _ = $0.watchers.removeValue(forKey: id) }
    }
}

/// What makes two writes identical: the operation, the user and the arguments.
private struct JoinedWrite: Hashable, @unchecked Sendable {
    // `AnyHashable` is not `Sendable`, but the only initializer takes `Sendable` arguments.
    let operation: String
    let actor: User.ID
    let arguments: [AnyHashable]

    init(operation: String, actor: User.ID, arguments: [any Hashable & Sendable]) {
        self.operation = operation
        self.actor = actor
        self.arguments = arguments.map { AnyHashable($0) }
    }
}
