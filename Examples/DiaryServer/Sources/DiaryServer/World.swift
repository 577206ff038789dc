@_spi(Storage) import DiaryPostgres
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
///
/// On PostgreSQL in test mode, the worlds are shared by every server process on the main schema: each world created
/// is named in the main schema's `test_worlds` table, and a process asked for a world it did not create opens that
/// world's schema on first use, so requests for one world may go to any of them (as behind a load balancer). Its data
/// clock and faults stay per process.
final class WorldRegistry: Sendable {
    /// The table in the main schema that names the test worlds every process may open.
    static let sharedWorldsTable = "test_worlds"

    private let worlds = Protected<[String: World]>([:])
    /// Worlds being opened on first use, so concurrent requests for one open it once.
    private let opening = Protected<[String: Task<World?, Never>]>([:])
    /// The shared list of test worlds (test mode on PostgreSQL), else `nil`.
    private let shared: PostgresDocumentTable?
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
        if options.testMode, let postgres = (storage.backend as? DatabaseBackend)?.storage as? PostgresDiaryStorage {
            shared = try await postgres.documentTable(named: Self.sharedWorldsTable)
        } else {
            shared = nil
        }
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
        do {
            try await shared?.insert(id: id, owner: "test", state: Self.sharedState(recordsContract: recordsContract))
        } catch {
            await storage.backend.close(deletingData: true)
            throw error
        }
        worlds.withLock { $0[id] = world }
        return world
    }

    /// What the shared table keeps of a world.
    private static func sharedState(recordsContract: Bool) -> String {
        #"{"recordsContract":\#(recordsContract)}"#
    }

    /// Opens a world another process created (test mode on PostgreSQL): `nil` when no process did.
    private func open(_ id: String, from shared: PostgresDocumentTable) async -> World? {
        guard let state = try? await shared.state(id: id) else { return nil }
        if let world = worlds.withLock({ $0[id] }) { return world }
        let object = try? JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any]
        let clock = ManualClock(Date())
        guard let storage = try? await makeBackend(id, clock) else { return nil }
        let world = World(
            id: id, backend: storage.backend, manualClock: clock,
            tokens: TokenService(keys: signingKeys, options: options, sessions: storage.sessions),
            idempotency: storage.idempotency, recordsContract: object?["recordsContract"] as? Bool ?? false)
        worlds.withLock { $0[id] = world }
        return world
    }

    /// Drops a world, deleting its files or its database schema.
    func remove(_ id: String) async {
        try? await shared?.remove(id: id)
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

    /// The world a request names, or the main one; on PostgreSQL in test mode, a world another process created is
    /// opened here on first use.
    func world(named id: String?) async -> World? {
        guard let id, options.testMode else { return main }
        if let world = worlds.withLock({ $0[id] }) { return world }
        guard let shared else { return nil }
        let task = opening.withLock { tasks in
            if let task = tasks[id] { return task }
            let task = Task { await self.open(id, from: shared) }
            tasks[id] = task
            return task
        }
        let world = await task.value
        opening.withLock { tasks in
            if tasks[id] == task { tasks[id] = nil }
        }
        return world
    }
}
