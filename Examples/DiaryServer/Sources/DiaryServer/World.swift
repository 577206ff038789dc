import DiarySDK
import DiarySDKInMemory
import Foundation

/// One isolated data set with its own clock, tokens, idempotency records and faults.
///
/// A production server has exactly one world. In test mode a test can create more (`POST /v1/_test/worlds`) and
/// address one with the `X-Diary-World` header, so many conformance checks share one server process without
/// sharing data.
final class World: Sendable {
    let id: String
    let backend: any StorageBackend
    /// The data clock: the system clock, or a manual one in test mode (`POST /v1/_test/clock`).
    let clock: (any DiaryClock)?
    let manualClock: ManualClock?
    let tokens: TokenService
    /// Where its writes' responses are remembered by `Idempotency-Key` (memory, or the database on PostgreSQL).
    let idempotency: any IdempotencyRecords
    let faults = FaultPlan()
    let stats = Protected(WorldStats())
    /// Whether its exchanges go to the contract log (test mode).
    let recordsContract: Bool

    init(
        id: String, backend: any StorageBackend, manualClock: ManualClock?, tokens: TokenService,
        idempotency: any IdempotencyRecords = IdempotencyStore(), recordsContract: Bool = false
    ) {
        self.id = id
        self.idempotency = idempotency
        self.recordsContract = recordsContract
        self.backend = backend
        self.manualClock = manualClock
        self.clock = manualClock
        self.tokens = tokens
    }
}

/// Counters a test can read back (`GET /v1/_test/stats`).
struct WorldStats: Codable, Sendable {
    /// Successful refreshes.
    var refreshes = 0
    /// Requests that reached a handler, by `METHOD /route`.
    var requests: [String: Int] = [:]
}

/// The worlds of one server process.
final class WorldRegistry: Sendable {
    private let worlds = Protected<[String: World]>([:])
    private let makeBackend: @Sendable (String, ManualClock?) async throws -> WorldStorage
    private let signingKeys: SigningKeySet
    private let options: ServerOptions
    /// The world used when a request names none.
    let main: World

    init(options: ServerOptions, signingKeys: SigningKeySet,
         makeBackend: @escaping @Sendable (String, ManualClock?) async throws -> WorldStorage) async throws {
        self.options = options
        self.signingKeys = signingKeys
        self.makeBackend = makeBackend
        let clock = options.testMode ? ManualClock(Date()) : nil
        let storage = try await makeBackend("main", clock)
        main = World(
            id: "main", backend: storage.backend, manualClock: clock,
            tokens: TokenService(keys: signingKeys, options: options, sessions: storage.sessions),
            idempotency: storage.idempotency)
    }

    /// Creates a new empty world (test mode only), recorded in the contract log when `recordsContract`.
    func create(recordsContract: Bool = false) async throws -> World {
        let id = UUID().uuidString.lowercased()
        let clock = ManualClock(Date())
        let storage = try await makeBackend(id, clock)
        let world = World(
            id: id, backend: storage.backend, manualClock: clock,
            tokens: TokenService(keys: signingKeys, options: options, sessions: storage.sessions),
            idempotency: storage.idempotency, recordsContract: recordsContract)
        worlds.withLock { $0[id] = world }
        return world
    }

    /// Drops a world, deleting its files or its database schema.
    func remove(_ id: String) async {
        guard let world = worlds.withLock({ $0.removeValue(forKey: id) }) else { return }
        await world.backend.close(deletingData: true)
        guard options.databaseURL == nil, let root = options.dataDirectory, !options.inMemory else { return }
        try? FileManager.default.removeItem(at: root.appendingPathComponent("worlds").appendingPathComponent(id))
    }

    /// Closes every world's storage (the server is stopping); test worlds' data goes too.
    func closeAll() async {
        for world in worlds.withLock({ $0.values }) {
            await world.backend.close(deletingData: true)
        }
        await main.backend.close(deletingData: false)
    }

    /// The world a request names, or the main one.
    func world(named id: String?) -> World? {
        guard let id, options.testMode else { return main }
        return worlds.withLock { $0[id] }
    }
}
