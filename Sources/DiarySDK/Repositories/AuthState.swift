import Foundation

/// Who is signed in on a device: what a screen shows a sign-in form or the app for.
public enum AuthState: Hashable, Sendable {
    /// No one is signed in.
    case signedOut
    /// A user is signed in; the value is the profile as its owner sees it, as of the last change.
    case signedIn(User)

    /// The signed-in user, or `nil`.
    public var user: User? {
        if case .signedIn(let user) = self { return user }
        return nil
    }
}

/// One element of ``AccountRepository/authStates()``: what happened, and the state after it.
public struct AuthStateChange: Hashable, Sendable {
    /// What happened.
    public enum Event: Hashable, Sendable {
        /// The first element of every stream: the state when it was subscribed to.
        case initial
        /// A user signed in, signed up or had their session restored.
        case signedIn
        /// The user was signed out, and why.
        case signedOut(SignOutReason)
        /// The session's tokens were renewed (over HTTP); the user is the same.
        case tokenRefreshed
        /// The signed-in user's profile or settings changed through this device.
        case profileUpdated
    }

    /// Why a session ended.
    public enum SignOutReason: Hashable, Sendable {
        /// The user signed out on this device.
        case userSignedOut
        /// The server no longer accepts the session: it expired, or the server revoked it (over HTTP, the server
        /// refused to refresh it, or to restore it at launch while the device still counted it signed in).
        case sessionExpired
        /// The account was deleted through this device.
        case accountWithdrawn
    }

    /// What happened.
    public var event: Event
    /// The state after it.
    public var state: AuthState

    /// Creates a change.
    public init(event: Event, state: AuthState) {
        self.event = event
        self.state = state
    }
}

/// The auth state of one device's session and the streams that follow it: what every backend's
/// ``AccountRepository/authStates()`` returns a subscription of.
///
/// Each subscriber first gets the state at the moment it subscribed (``AuthStateChange/Event/initial``), then every
/// change, in order. A change is handed to every stream before the call that made it returns, so a screen that
/// signs in and then reads its stream finds the sign-in there.
package final class AuthStateBroadcaster: Sendable {
    private struct State {
        var current: AuthState = .signedOut
        var subscribers: [UUID: AsyncStream<AuthStateChange>.Continuation] = [:]
    }

    /// A change of who is signed in, announced by whoever holds the session at the moment it swaps the session, so
    /// that the stream and the session never disagree.
    package enum Announcement: Sendable {
        case signedIn(User)
        case signedOut(AuthStateChange.SignOutReason)
    }

    private let state = Locked(State())

    /// A broadcaster for a signed-out device.
    package init() {}

    deinit {
        for subscriber in state.current.subscribers.values { subscriber.finish() }
    }

    /// Publishes an announcement (see ``signedIn(_:)`` and ``signedOut(_:)``).
    package func announce(_ announcement: Announcement) {
        switch announcement {
        case .signedIn(let user): signedIn(user)
        case .signedOut(let reason): signedOut(reason)
        }
    }

    /// A new stream: the current state, then every change until the stream is dropped.
    package func subscribe() -> AsyncStream<AuthStateChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthStateChange.self, bufferingPolicy: .unbounded)
        let id = UUID()
        state.withLock { state in
            continuation.yield(AuthStateChange(event: .initial, state: state.current))
            state.subscribers[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Publishes ``AuthStateChange/Event/signedIn`` unless the same user is signed in already with the same profile.
    package func signedIn(_ user: User) {
        publish(.signedIn, .signedIn(user)) { $0 != .signedIn(user) }
    }

    /// Publishes a sign-out for `reason`, unless no one is signed in.
    package func signedOut(_ reason: AuthStateChange.SignOutReason) {
        publish(.signedOut(reason), .signedOut) { $0 != .signedOut }
    }

    /// Publishes ``AuthStateChange/Event/profileUpdated`` when `user` is the one signed in and differs from the
    /// state as last published.
    package func profileUpdated(_ user: User) {
        publish(.profileUpdated, .signedIn(user)) { $0.user?.id == user.id && $0.user != user }
    }

    /// Publishes ``AuthStateChange/Event/tokenRefreshed`` with the current state, when someone is signed in.
    package func tokenRefreshed() {
        state.withLock { state in
            guard let user = state.current.user else { return }
            Self.send(AuthStateChange(event: .tokenRefreshed, state: .signedIn(user)), in: &state)
        }
    }

    /// Makes `newState` current and hands every subscriber `event` with it, when `when` holds for the current state.
    private func publish(_ event: AuthStateChange.Event, _ newState: AuthState, when: (AuthState) -> Bool) {
        state.withLock { state in
            guard when(state.current) else { return }
            state.current = newState
            Self.send(AuthStateChange(event: event, state: newState), in: &state)
        }
    }

    private static func send(_ change: AuthStateChange, in state: inout State) {
        for subscriber in state.subscribers.values { subscriber.yield(change) }
    }
}
