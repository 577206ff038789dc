@_spi(Storage) @_spi(Engine) import DiarySDK
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
        if write, (try? await userID()) != nil, await backend.sync.current.pendingWrites > 0 {
            try await backend.sync.syncNow()
        }
        return try await call()
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
