@_spi(Storage) @_spi(Engine) import DiarySDK
@_spi(Storage) import DiarySDKFileStore
import DiarySDKHTTP
import Foundation

/// What the offline repositories share: the backend, who is signed in, and the way to the server.
struct OfflineContext: Sendable {
    let backend: OfflineBackend

    var remote: DiaryRepositories { backend.remote.repositories }

    /// The signed-in user (from the session store, so it holds offline and across launches).
    func userID() async throws -> User.ID {
        if let userID = await backend.sync.signedInUser { return userID }
        guard let session = try await backend.configuration.server.tokenStore.load() else {
            throw DiaryError.notSignedIn
        }
        return session.userID
    }

    /// The replica's engine acting as the signed-in user.
    func engine() async throws -> (DiaryEngine, User.ID) {
        let userID = try await userID()
        return (backend.engine(for: userID), userID)
    }

    /// Runs a call that only the server can answer.
    ///
    /// While the last attempt found the server unreachable it fails at once with `.unavailable` (the sync keeps
    /// trying in the background, and ``OfflineBackend/sync()`` tries now). A write first sends the outbox, so the
    /// server sees the user's writes in the order they were made.
    /// - Parameter failsFast: Whether to fail at once while offline; sign-in and sign-up always try the server (they
    ///   are how a device that lost its session gets back).
    func online<Result: Sendable>(
        _ operation: String, write: Bool, failsFast: Bool = true, _ call: () async throws -> Result
    ) async throws -> Result {
        if failsFast, await backend.sync.isOffline {
            throw DiaryError(
                .unavailable,
                "\(operation) needs the server, which could not be reached at the last attempt (writes made offline wait in the outbox)")
        }
        if write, (try? await userID()) != nil, let error = await backend.sync.sendPending() {
            throw error
        }
        return try await call()
    }

    /// Runs a read that only the server can answer, answering from the device what the server last answered to
    /// the same read while the server cannot be reached.
    ///
    /// Online, the server's answer is returned and kept (``ReadCache``); an answer of `.notFound` forgets the kept
    /// one. While the last attempt found the server unreachable, or when this one does not reach it, the kept answer
    /// is returned, passed through `onCacheHit` (which lays the user's queued writes over it); with none kept, it
    /// fails with `.unavailable`.
    /// - Parameters:
    ///   - operation: The repository call, part of the read's key.
    ///   - arguments: The call's arguments, the rest of the key.
    func online<Result: Sendable & Codable>(
        _ operation: String, cached arguments: [any Encodable], onCacheHit: (Result) async throws -> Result = { $0 },
        _ call: () async throws -> Result
    ) async throws -> Result {
        let key = ReadCache.Key(operation, arguments)
        let userID = try? await userID()
        let cache = backend.readCache
        await sendPendingBeforeRead()
        func cached(_ error: DiaryError) async throws -> Result {
            guard let value = cache.value(Result.self, for: key, userID: userID) else { throw error }
            return try await onCacheHit(value)
        }
        if await backend.sync.isOffline {
            return try await cached(
                DiaryError(
                    .unavailable,
                    "\(operation) needs the server, which could not be reached at the last attempt, and this device has no earlier answer to it"))
        }
        do {
            let result = try await call()
            // Kept only if the user did not change while the server answered.
            if await (try? self.userID()) == userID {
                cache.store(result, for: key, userID: userID, at: backend.configuration.environment.clock.now())
            }
            return result
        } catch let error as DiaryError where OfflineSync.isUnreachable(error) && !Task.isCancelled {
            return try await cached(error)
        } catch let error as DiaryError where error.code == .notFound {
            cache.remove(key, userID: userID)
            throw error
        }
    }

    /// Sends the outbox first, when there is anything in it and the server was reachable at the last attempt, so a
    /// read of the server sees the user's own comments and likes; a read goes on whatever the outcome.
    func sendPendingBeforeRead() async {
        guard await !backend.sync.isOffline else { return }
        _ = await backend.sync.sendPending()
    }

    /// A write the server decides that can wait for it (a comment, a like, an entry in a book).
    ///
    /// While the server was reachable at the last attempt, the outbox is sent and then `call` goes to the server
    /// with a new idempotency key; its answer is returned. While it was not, or when this attempt does not reach
    /// it (no answer, 5xx, 429), the write goes into the outbox with that same key, so a server that applied an
    /// attempt whose answer was lost answers the resend from its idempotency record, and `local` makes the value
    /// to return from what the device knows. `local` runs before anything is queued: a write it refuses (blank
    /// text, a post the device never read) is never queued.
    /// - Parameters:
    ///   - operation: What the outbox entry sends.
    ///   - made: The outbox entry's subject and payload (encoded before anything is sent, so a write that cannot be
    ///     queued is not sent either).
    func sendOrQueue<Result: Sendable>(
        _ operation: OutboxOperation, _ made: (subject: UUID, payload: String), call: () async throws -> Result,
        local: (User.ID) async throws -> Result
    ) async throws -> Result {
        let userID = try await userID()
        let key = UUID()
        if await !backend.sync.isOffline {
            do {
                if let error = await backend.sync.sendPending() { throw error }
                // Sent directly only with the user's own session (the sync runs for them and the session store holds
                // theirs), and only once nothing of theirs waits before it.
                if try await isSessionOf(userID) {
                    return try await HTTPBackend.withIdempotencyKey(key.uuidString.lowercased(), call)
                }
            } catch let error as DiaryError where OfflineSync.isUnreachable(error) && !Task.isCancelled {
                // Not answered: queued below.
            }
        }
        let value = try await local(userID)
        let pending = PendingWrite(
            id: key, userID: userID, operation: operation, createdAt: backend.configuration.environment.clock.now(),
            payload: { _ in nil })
        try await backend.outboxStorage.enqueue(pending, made)
        await backend.sync.queued()
        return value
    }

    /// What the signed-in user last saw (see ``SeenValues``).
    func seen() async -> SeenValues {
        backend.seen(for: try? await userID())
    }

    /// Whether the sync runs for `userID` and the session store holds their session: a direct request then goes with
    /// their session and after their queued writes.
    private func isSessionOf(_ userID: User.ID) async throws -> Bool {
        guard await backend.sync.signedInUser == userID else { return false }
        return try await backend.configuration.server.tokenStore.load()?.userID == userID
    }

    /// The signed-in user's public identity, from the profile the replica holds.
    func author(_ userID: User.ID) async throws -> AuthorSummary? {
        let user = try await backend.replica.storage.read("offline.user") { try await $0.user(userID) }
        return user.map { AuthorSummary(id: $0.id, nickname: $0.nickname, avatar: $0.avatar) }
    }

    /// Runs a local write with its outbox entry, then wakes the sync (or, with
    /// ``OfflineBackend/WriteAcknowledgement/serverWhenReachable``, waits for the server's answer).
    func queue<Result: Sendable>(
        _ operation: OutboxOperation, userID: User.ID,
        payload: @escaping @Sendable (any Sendable) throws -> (subject: UUID, payload: String)?,
        _ write: () async throws -> Result
    ) async throws -> Result {
        let pending = PendingWrite(
            id: UUID(), userID: userID, operation: operation, createdAt: backend.configuration.environment.clock.now(),
            payload: payload)
        let result = try await OutboxStorage.queue(pending, write)
        guard backend.configuration.acknowledgement == .serverWhenReachable, await !backend.sync.isOffline else {
            await backend.sync.queued()
            return result
        }
        if let refusal = await backend.sync.deliver(through: pending.id) { throw refusal }
        return result
    }
}
