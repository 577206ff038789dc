import DiarySDK
import DiarySDKFileStore
import DiarySDKInMemory
import Foundation

extension FileStoreBackend: StorageBackend {}

/// Opens a world's storage: the file store under the data directory (the main world in the directory itself, test
/// worlds in `worlds/<id>`), or memory with `--in-memory`.
func makeStorage(
    options: ServerOptions, world: String, clock: ManualClock?, engine: DiaryEngine.Configuration
) throws -> any StorageBackend {
    let dataClock: any DiaryClock = clock ?? SystemClock()
    let utc = TimeZone(identifier: "UTC")!
    guard let root = options.dataDirectory, !options.inMemory else {
        return InMemoryBackend(configuration: .init(clock: dataClock, defaultTimeZone: utc, engine: engine))
    }
    let directory = world == "main" ? root : root.appendingPathComponent("worlds").appendingPathComponent(world)
    return try FileStoreBackend(
        configuration: .init(directory: directory, clock: dataClock, defaultTimeZone: utc, engine: engine),
        sessionStore: InMemorySessionStore())
}
