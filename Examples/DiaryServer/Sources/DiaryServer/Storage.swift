import DiarySDK
import DiarySDKInMemory
import Foundation

/// Opens a world's storage: in memory with `--in-memory`, otherwise the file store under the data directory.
func makeStorage(
    options: ServerOptions, world: String, clock: ManualClock?, engine: DiaryEngine.Configuration
) throws -> any StorageBackend {
    let dataClock: any DiaryClock = clock ?? SystemClock()
    if options.inMemory || options.dataDirectory == nil {
        return InMemoryBackend(configuration: .init(clock: dataClock, engine: engine))
    }
    throw OptionsError(message: "the file store is not available in this build; use --in-memory")
}
