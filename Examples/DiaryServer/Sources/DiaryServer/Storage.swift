@_spi(Storage) import DiarySDK
import DiarySDKFileStore
import DiarySDKInMemory
import Foundation

extension FileStoreBackend: StorageBackend {}

/// Opens a world's storage: PostgreSQL when the environment names a database (the main world in
/// `DIARY_DATABASE_SCHEMA`, test worlds in a schema of their own, `w_<world id>`), else the file store under the
/// data directory (the main world in the directory itself, test worlds in `worlds/<id>`), or memory with `--in-memory`.
func makeStorage(
    options: ServerOptions, world: String, clock: ManualClock?, engine: DiaryEngine.Configuration
) async throws -> any StorageBackend {
    let dataClock: any DiaryClock = clock ?? SystemClock()
    let utc = TimeZone(identifier: "UTC")!
    if let url = options.databaseURL {
        let isMain = world == "main"
        return try await DatabaseBackend.postgres(
            url: url, schema: isMain ? options.databaseSchema : testWorldSchema(world),
            // Test worlds are many and short-lived: a small pool each keeps a test run under max_connections.
            maximumConnections: isMain ? options.databaseMaxConnections : 2,
            environment: DiaryEnvironment(clock: dataClock, defaultTimeZone: utc), configuration: engine,
            // A test world's change feed may poll once more after its schema is dropped: not worth a warning.
            logLevel: isMain ? .warning : .critical)
    }
    guard let root = options.dataDirectory, !options.inMemory else {
        return InMemoryBackend(configuration: .init(clock: dataClock, defaultTimeZone: utc, engine: engine))
    }
    let directory = world == "main" ? root : root.appendingPathComponent("worlds").appendingPathComponent(world)
    return try FileStoreBackend(
        configuration: .init(directory: directory, clock: dataClock, defaultTimeZone: utc, engine: engine),
        sessionStore: InMemorySessionStore())
}

/// The schema of a test world: `w_` and the world id's letters and digits, lowercased.
func testWorldSchema(_ world: String) -> String {
    "w_" + String(world.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }.map(Character.init)).prefix(60)
}
