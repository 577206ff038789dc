import DiarySDK
import DiarySDKFileStore
import Foundation
import GRDB

/// `FileStoreBenchmarks profile <calendar|tags|writes> <file|sqlite> <entries> <repetitions>`: opens a cached store
/// and runs one query `repetitions` times after one warm-up, for an instruction counter or `perf record`. `writes`
/// makes that many durable single writes (the write figure's) into a working copy of the file store. Under
/// `valgrind --tool=callgrind`, the difference between runs with two repetition counts divided by their
/// difference is the instructions of one warm query, without opening the store.
enum Profile {
    static func run(_ arguments: [String], cache: DatasetCache) async throws {
        guard arguments.count >= 4, let size = Int(arguments[2]), let repetitions = Int(arguments[3]) else {
            throw BenchmarkError(Options.usage)
        }
        let query = arguments[0]
        let files = try await cache.diaries(size, json: false)
        switch arguments[1] {
        case "file" where query == "writes":
            let store = try DatasetCache.workingCopy(of: files.store, name: "profile-writes")
            defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
            let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(store))
            _ = try await FileStoreBench.writes(backend, count: 1, from: size)
            _ = try await FileStoreBench.writes(backend, count: repetitions, from: size + 1)
            try await backend.close()
        case "sqlite" where query == "writes":
            let database = try DatasetCache.workingCopy(of: URL(fileURLWithPath: files.sqlite), name: "profile-writes")
            defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
            let pool = try SQLiteColumns.openPool(database.path)
            _ = try SQLiteBench.writes(pool, count: 1, from: size)
            _ = try SQLiteBench.writes(pool, count: repetitions, from: size + 1)
            try pool.close()
        case "file":
            let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(files.store))
            _ = query == "calendar"
                ? try await FileStoreBench.calendar(backend, count: 1) : try await FileStoreBench.tagSearch(backend, count: 1)
            if repetitions > 0 {
                _ = query == "calendar"
                    ? try await FileStoreBench.calendar(backend, count: repetitions)
                    : try await FileStoreBench.tagSearch(backend, count: repetitions)
            }
            try await backend.close()
        case "sqlite":
            let pool = try DatabasePool(path: files.sqlite)
            _ = query == "calendar" ? try SQLiteBench.calendar(pool, count: 1) : try SQLiteBench.tagSearch(pool, count: 1)
            if repetitions > 0 {
                _ = query == "calendar"
                    ? try SQLiteBench.calendar(pool, count: repetitions) : try SQLiteBench.tagSearch(pool, count: repetitions)
            }
            try pool.close()
        default:
            throw BenchmarkError(Options.usage)
        }
    }
}
