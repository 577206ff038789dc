@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// A complete backend that keeps everything in memory: for previews, for demos, and as the unit-test fake of an
/// app's data layer.
///
/// It runs the same engine as the file store and the reference server, so it enforces every rule they do. As a
/// test double it is deterministic (inject a ``ManualClock`` and a ``SequentialIDGenerator``), seedable
/// (``seed(_:)``), inspectable (``contents``, ``operations``), resettable (``reset()``) and can fail or slow down on
/// demand (``failNext(_:with:matching:)``, ``latency``).
///
/// An app's view-model test:
///
/// ```swift
/// @Test func showsAnErrorWhenSavingFails() async throws {
///     let backend = InMemoryBackend(configuration: .init(clock: ManualClock(), ids: SequentialIDGenerator()))
///     let alice = backend.seed { $0.user("alice") }
///     let model = ComposeViewModel(diaries: backend.repositories(signedInAs: alice.id).diaries)
///
///     backend.failNext(with: DiaryError(.unavailable, "offline"), matching: "diaries.write")
///     await model.save(text: "Hello")
///
///     #expect(model.errorMessage == "offline")
///     #expect(try await backend.contents.diaries.isEmpty)
/// }
/// ```
public final class InMemoryBackend: Sendable {
    /// How the backend behaves.
    public struct Configuration: Sendable {
        /// Clock, ids and default time zone.
        public var environment: DiaryEnvironment
        /// Engine settings; password hashing is cheap by default here, since nothing is persisted.
        public var engine: DiaryEngine.Configuration
        /// How many committed transactions the change log keeps for change streams that resume after a position
        /// (``ChangeFeed/changes(_:after:)``); older positions are answered with ``ChangeEvent/reloadRequired(_:)``.
        public var changeLogRetention: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - clock: The clock; the system clock by default.
        ///   - ids: The id generator; random by default.
        ///   - defaultTimeZone: The zone for users without one; UTC by default, so tests do not depend on the machine.
        ///   - engine: Engine settings (1,000 PBKDF2 iterations by default).
        ///   - changeLogRetention: How many committed transactions change streams can resume across; 1,000 by
        ///     default.
        public init(
            clock: any DiaryClock = SystemClock(), ids: any IDGenerator = RandomIDGenerator(),
            defaultTimeZone: TimeZone = TimeZone(identifier: "UTC")!,
            engine: DiaryEngine.Configuration = .init(passwordHashIterations: 1_000), changeLogRetention: Int = 1_000
        ) {
            self.environment = DiaryEnvironment(clock: clock, ids: ids, defaultTimeZone: defaultTimeZone)
            self.engine = engine
            self.changeLogRetention = changeLogRetention
        }
    }

    /// The configuration it was created with.
    public let configuration: Configuration
    let store: InMemoryDiaryStore
    private let defaultSessionStore: any SessionStore

    /// Creates an empty backend.
    /// - Parameters:
    ///   - configuration: Clock, ids and engine settings.
    ///   - sessionStore: Where ``repositories``' session is kept; in memory by default.
    public init(configuration: Configuration = .init(), sessionStore: any SessionStore = InMemorySessionStore()) {
        self.configuration = configuration
        self.store = InMemoryDiaryStore(changeLogRetention: configuration.changeLogRetention)
        self.defaultSessionStore = sessionStore
        self.defaultRepositories = Locked(nil)
    }

    private let defaultRepositories: Locked<DiaryRepositories?>

    /// The app's repositories: one signed-out device whose session lives in the backend's session store.
    public var repositories: DiaryRepositories {
        defaultRepositories.withLock { cached in
            if let cached { return cached }
            let made = makeRepositories(sessionStore: defaultSessionStore)
            cached = made
            return made
        }
    }

    /// A new, signed-out device sharing this backend's data (to act as a second user in a test).
    /// - Parameter sessionStore: Where the device keeps its session.
    /// - Returns: The device's repositories.
    public func makeRepositories(sessionStore: any SessionStore = InMemorySessionStore()) -> DiaryRepositories {
        DiaryEngine(
            store: store, environment: configuration.environment, configuration: configuration.engine,
            sessionStore: sessionStore
        ).repositories
    }

    /// Repositories that act as one user, with no session to manage: what a server does per request, and the
    /// quickest way to act as a seeded user in a test.
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

    // MARK: - Test controls

    /// Makes the next `count` calls fail with `error`; only calls whose operation name starts with `operation` when
    /// one is given (`"diaries.write"`, or `"posts."` for every post call).
    /// - Parameters:
    ///   - count: How many calls fail.
    ///   - error: The error they throw.
    ///   - operation: An operation name or prefix; every operation when `nil`.
    public func failNext(_ count: Int = 1, with error: DiaryError, matching operation: String? = nil) {
        store.addFault(.init(operationPrefix: operation, remaining: max(1, count), error: error))
    }

    /// Makes every call whose operation starts with `operation` fail until ``clearFaults()``.
    /// - Parameters:
    ///   - operation: An operation name or prefix.
    ///   - error: The error they throw.
    public func failAlways(matching operation: String, with error: DiaryError) {
        store.addFault(.init(operationPrefix: operation, remaining: nil, error: error))
    }

    /// Removes every injected fault.
    public func clearFaults() {
        store.clearFaults()
    }

    /// A delay added to every call, to exercise loading states and double taps.
    /// - Parameter seconds: The delay.
    public func setLatency(_ seconds: TimeInterval) {
        store.setLatency(seconds)
    }

    /// The operations called so far, in order (`"accounts.signUp"`, `"diaries.write"`, …).
    public var operations: [String] { store.operations }

    /// Forgets the recorded operations.
    public func clearOperations() {
        store.clearLog()
    }

    /// Empties the backend: data, files, faults, latency and the operation log. Existing sessions end.
    public func reset() {
        store.reset()
    }

    /// Everything stored, as plain values to assert on.
    ///
    /// Asynchronous: posts and comments are shown through the engine's own rules, which read the store
    /// asynchronously.
    public var contents: InMemoryContents {
        get async throws { try await InMemoryContents(database: store.snapshot, attachmentFiles: store.blobCount()) }
    }
}
