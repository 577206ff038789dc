import DiarySDK
import Foundation

/// The signed-in session of one ``HTTPBackend``: the token pair, its persistence, and the single-flight refresh.
///
/// When many requests find the access token expired at once, the first starts a refresh and the others wait for the
/// same one, so exactly one refresh request is sent. A refresh the server rejects signs the user out (the token store
/// is cleared). Every sign-in and sign-out bumps a generation counter, so a refresh that finishes after a sign-out
/// (or after another sign-in) is thrown away and never brings the old session back.
actor SessionManager {
    typealias Refresher = @Sendable (_ refreshToken: String, _ userID: User.ID) async throws -> StoredSession

    private let store: any SessionStore
    private let leeway: TimeInterval
    private var session: StoredSession? {
        didSet { published.withLock { $0 = (session, true) } }
    }
    /// The session as last set, readable without a hop onto the actor (the hot path of every request).
    private nonisolated let published = Locked<(session: StoredSession?, loaded: Bool)>((nil, false))
    private var loaded = false
    private var generation = 0
    private var refreshTask: Task<StoredSession, any Error>?
    /// Set while the user signs out (``beginUserSignOut()``): a refresh refused meanwhile is part of that sign-out.
    private var isUserSigningOut = false
    /// The device's auth state and its subscribers: a refresh announces new tokens, and a refused one the end of the
    /// session, here; the account calls announce the rest.
    nonisolated let authStates = AuthStateBroadcaster()

    init(store: any SessionStore, leeway: TimeInterval) {
        self.store = store
        self.leeway = leeway
    }

    /// The session, read from the store on first use.
    func current() async throws -> StoredSession? {
        if !loaded {
            let stored = try await store.load()
            if !loaded {
                loaded = true
                session = stored
            }
        }
        return session
    }

    /// Replaces the session (sign-in) or clears it (sign-out), ending any refresh in flight, and announces the change
    /// of who is signed in (if any) in the same step, before the store is written: the auth-state stream follows
    /// the session's changes in the order they happen on this actor.
    func replace(
        with newSession: StoredSession?, announcing announcement: AuthStateBroadcaster.Announcement? = nil
    ) async throws {
        generation += 1
        refreshTask = nil
        loaded = true
        isUserSigningOut = false
        session = newSession
        if let announcement { authStates.announce(announcement) }
        try await store.save(newSession)
    }

    /// Notes that the user is signing out, so that a refresh the server refuses on the way says the user signed out
    /// rather than that the session expired.
    func beginUserSignOut() {
        isUserSigningOut = true
    }

    /// The number of sign-ins and sign-outs so far, to announce a restored session only if none came meanwhile.
    var currentGeneration: Int { generation }

    /// Announces a restored session, unless the session was replaced since `started` (a sign-out while the profile
    /// was fetched).
    func announceRestored(_ user: User, generation started: Int) {
        guard generation == started, session != nil else { return }
        authStates.signedIn(user)
    }

    /// Notes a push token registered in the current session, so sign-out unregisters it.
    func remember(deviceToken: String) async throws {
        guard var current = try await current(), !(current.deviceTokens ?? []).contains(deviceToken) else { return }
        current.deviceTokens = (current.deviceTokens ?? []) + [deviceToken]
        session = current
        try await store.save(current)
    }

    /// Who requests are sent as, for joining identical requests (never across users); `nil` until the session has
    /// been read from its store (``current()``).
    nonisolated var principal: String? {
        let (session, loaded) = published.current
        guard loaded else { return nil }
        return session?.userID.description ?? "signed-out"
    }

    /// The access token when the session is loaded and not about to expire, without waiting for the actor; `nil`
    /// sends the caller to ``accessToken(refresher:)``.
    nonisolated func currentAccessToken() -> String? {
        let (session, loaded) = published.current
        guard loaded, let session else { return nil }
        if let expiresAt = session.expiresAt, session.refreshToken != nil, expiresAt.timeIntervalSinceNow < leeway {
            return nil
        }
        return session.accessToken
    }

    /// An access token valid for a while yet, refreshing first when it is about to expire.
    /// - Throws: `.unauthenticated` when no one is signed in or the refresh was rejected.
    func accessToken(refresher: @escaping Refresher) async throws -> String {
        guard let session = try await current() else { throw DiaryError.notSignedIn }
        if let expiresAt = session.expiresAt, session.refreshToken != nil,
            expiresAt.timeIntervalSinceNow < leeway
        {
            return try await refresh(replacing: session.accessToken, refresher: refresher)
        }
        return session.accessToken
    }

    /// Refreshes after `staleToken` was refused, unless another caller already did.
    /// - Returns: The new access token.
    /// - Throws: `.unauthenticated` when the refresh was rejected (the user is then signed out), or when the user
    ///   signed out while it ran; the refresh's own error when it failed for another reason.
    func refresh(replacing staleToken: String, refresher: @escaping Refresher) async throws -> String {
        guard let session = try await current() else { throw DiaryError.notSignedIn }
        if session.accessToken != staleToken { return session.accessToken }
        let started = generation
        let task: Task<StoredSession, any Error>
        if let running = refreshTask {
            task = running
        } else {
            guard let refreshToken = session.refreshToken else {
                try await signOutAfterFailedRefresh(generation: started)
                throw DiaryError(.unauthenticated, "the session expired; sign in again")
            }
            let userID = session.userID
            // Not under a write's chosen idempotency key (HTTPBackend.withIdempotencyKey): the refresh is a request of
            // its own, and a key reused for it would make the write's later refresh look like a different request.
            task = Task {
                try await HTTPBackend.$chosenIdempotencyKey.withValue(nil) { try await refresher(refreshToken, userID) }
            }
            refreshTask = task
        }
        do {
            var renewed = try await task.value
            guard generation == started else { throw DiaryError(.unauthenticated, "signed out while the session was refreshed") }
            // The tokens as they are now: a push token remembered while the refresh ran must not be lost.
            renewed.deviceTokens = self.session?.deviceTokens
            if self.session?.accessToken == staleToken {
                self.session = renewed
                refreshTask = nil
                try await store.save(renewed)
                authStates.tokenRefreshed()
            }
            return renewed.accessToken
        } catch let error as DiaryError where error.code == .unauthenticated {
            try await signOutAfterFailedRefresh(generation: started)
            throw DiaryError(.unauthenticated, "the session expired; sign in again", httpStatus: error.httpStatus)
        } catch {
            if generation == started { refreshTask = nil }
            throw error
        }
    }

    private func signOutAfterFailedRefresh(generation started: Int) async throws {
        guard generation == started else { return }
        try await replace(with: nil, announcing: .signedOut(isUserSigningOut ? .userSignedOut : .sessionExpired))
    }
}
