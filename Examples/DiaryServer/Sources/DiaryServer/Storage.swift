@_spi(Engine) @_spi(Storage) import DiarySDK
@_spi(Engine) import DiarySDKFileStore
import DiarySDKInMemory
import Foundation

extension FileStoreBackend: StorageBackend {}

/// A world's data, and its sessions and idempotency records, which live beside it.
struct WorldStorage: Sendable {
    let backend: any StorageBackend
    let sessions: any ServerSessionStore
    var idempotency: any IdempotencyRecords = IdempotencyStore()
}

/// Opens a world's storage: PostgreSQL when the environment names a database (the main world in
/// `DIARY_DATABASE_SCHEMA`, test worlds in a schema of their own, `w_<world id>`), else the file store under the
/// data directory (the main world in the directory itself, test worlds in `worlds/<id>`), or memory with `--in-memory`.
///
/// Sessions go where the data goes: the schema's `server_sessions` table, the directory's `server-sessions.json`,
/// or memory. Idempotency records go to the schema's `idempotency_records` table on PostgreSQL, else memory (the
/// file store and `--in-memory` are one process).
func makeStorage(
    options: ServerOptions, world: String, clock: ManualClock?, engine: DiaryEngine.Configuration
) async throws -> WorldStorage {
    let dataClock: any DiaryClock = clock ?? SystemClock()
    let utc = TimeZone(identifier: "UTC")!
    if let url = options.databaseURL {
        let isMain = world == "main"
        let backend = try await DatabaseBackend.postgres(
            url: url, schema: isMain ? options.databaseSchema : testWorldSchema(world),
            // Test worlds are many and short-lived: a small pool each keeps a test run under max_connections.
            maximumConnections: isMain ? options.databaseMaxConnections : 2,
            environment: DiaryEnvironment(clock: dataClock, defaultTimeZone: utc), configuration: engine,
            // A test world's change feed may poll once more after its schema is dropped: not worth a warning.
            logLevel: isMain ? .warning : .critical)
        do {
            return WorldStorage(
                backend: backend, sessions: try await backend.makeSessionStore(),
                idempotency: try await backend.makeIdempotencyRecords())
        } catch {
            await backend.close(deletingData: !isMain)
            throw error
        }
    }
    guard let root = options.dataDirectory, !options.inMemory else {
        return WorldStorage(
            backend: InMemoryBackend(
                configuration: .init(
                    clock: dataClock, defaultTimeZone: utc, engine: engine,
                    changeLogRetention: options.changeLogRows ?? 1_000)),
            sessions: InMemoryServerSessionStore())
    }
    let directory = world == "main" ? root : root.appendingPathComponent("worlds").appendingPathComponent(world)
    let backend = try FileStoreBackend(
        configuration: .init(
            directory: directory, clock: dataClock, defaultTimeZone: utc, engine: engine,
            changeLogRetention: options.changeLogRows ?? 1_000),
        sessionStore: InMemorySessionStore())
    return WorldStorage(backend: backend, sessions: try FileServerSessionStore(directory: directory))
}

/// The schema of a test world: `w_` and the world id's letters and digits, lowercased.
func testWorldSchema(_ world: String) -> String {
    "w_" + String(world.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }.map(Character.init)).prefix(60)
}
