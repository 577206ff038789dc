import DiarySDK
import DiarySDKFileStore
import Foundation
import GRDB

/// `FileStoreBenchmarks profile <calendar|tags|writes|during|open> <file|sqlite> <entries> <repetitions>`: opens a cached store
/// and runs one query `repetitions` times after one warm-up, then four more times, printing the fastest batch's mean per query (for an instruction counter or `perf record`). `writes`
/// makes that many durable single writes (the write figure's) into a working copy of the file store; `during` (file
/// only) makes rounds of that many with no compaction and as many during compactions (see the case below); `open` (file
/// only) opens and closes the cached store that many times and prints the median open next to the median bare
/// decode of the same entries. Under
/// `valgrind --tool=callgrind`, the difference between runs with two repetition counts divided by their
/// difference is the instructions of one warm query, without opening the store.
enum Profile {
    static func run(_ arguments: [String], cache: DatasetCache) async throws {
        guard arguments.count >= 4, let size = Int(arguments[2]), let repetitions = Int(arguments[3]) else {
            throw BenchmarkError(Options.usage)
        }
        let query = arguments[0]
        let files = try await cache.diaries(size, json: query == "during")
        switch arguments[1] {
        case "file" where query == "open":
            // Opens and closes the cached store `repetitions` times, then decodes its entries' bare JSON as often,
            // and prints the median of each (a steadier figure than one open per round).
            let json = try Data(contentsOf: try await cache.diaries(size, json: true).json)
            var opens: [Double] = []
            var decodes: [Double] = []
            for _ in 0..<max(1, repetitions) {
                var backend: FileStoreBackend?
                opens.append(try Clock.seconds { backend = try FileStoreBackend(configuration: FileStoreBench.configuration(files.store)) })
                try await backend?.close()
                decodes.append(try Clock.seconds { _ = try JSONDecoder.diary().decode([Diary].self, from: json) })
            }
            let median = { (values: [Double]) in values.sorted()[values.count / 2] * 1_000 }
            print(String(format: "open %.2f ms, bare decode %.2f ms (medians of %d)", median(opens), median(decodes), opens.count))
        case "file" where query == "writes":
            let store = try DatasetCache.workingCopy(of: files.store, name: "profile-writes")
            defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
            let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(store))
            _ = try await FileStoreBench.writes(backend, count: 1, from: size)
            _ = try await FileStoreBench.writes(backend, count: repetitions, from: size + 1)
            try await backend.close()
        case "file" where query == "during":
            // Five rounds of `repetitions` durable single writes with no compaction, then as many during compactions,
            // made as the write figure makes them; per round, the percentiles of both. With PROFILE_RAW set, every
            // latency ("N" or "D", milliseconds), for pooling rounds and runs; with PROFILE_TRACE set, each write
            // during a compaction with its start on the monotonic clock (seconds, as `perf record -k CLOCK_MONOTONIC`
            // stamps its events) and its place in the compaction, to match slow writes with scheduler and block
            // events.
            let store = try DatasetCache.workingCopy(of: files.store, name: "profile-during")
            defer { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
            let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(store))
            let entries = try JSONDecoder.diary().decode([Diary].self, from: Data(contentsOf: files.json))
            let environment = ProcessInfo.processInfo.environment
            var index = size
            _ = try await FileStoreBench.writes(backend, count: 20, from: index)
            index += 20
            let summary = { (values: [Double]) -> String in
                guard !values.isEmpty else { return "n 0" }
                let sorted = values.sorted()
                let at = { (p: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1_000 }
                return String(
                    format: "n %3d p50 %.3f p90 %.3f p99 %.3f max %.3f mean %.3f ms", sorted.count, at(0.5), at(0.9),
                    Stats.percentile(values, 99) * 1_000, sorted.last! * 1_000, Stats.mean(values) * 1_000)
            }
            for _ in 0..<5 {
                let normal = try await FileStoreBench.writes(backend, count: repetitions, from: index)
                index += repetitions
                var during: [Double] = []
                while during.count < repetitions {
                    guard try await FileStoreBench.triggerCompaction(backend, directory: store, entries: entries) else { break }
                    var place = 0
                    while during.count < repetitions, FileStoreBench.isCompacting(store) {
                        let started = DispatchTime.now().uptimeNanoseconds
                        let seconds = try await FileStoreBench.write(backend, index: index)
                        index += 1
                        if FileStoreBench.isCompacting(store) {
                            during.append(seconds)
                            if environment["PROFILE_TRACE"] != nil {
                                print(String(format: "write %.6f %d %.3f", Double(started) / 1e9, place, seconds * 1_000))
                            }
                            place += 1
                        }
                    }
                    try await FileStoreBench.waitForCompaction(store)
                }
                if environment["PROFILE_RAW"] != nil {
                    for value in normal { print(String(format: "N %.4f", value * 1_000)) }
                    for value in during { print(String(format: "D %.4f", value * 1_000)) }
                }
                print("normal " + summary(normal))
                print("during " + summary(during))
            }
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
                // Five batches; the fastest batch's mean is the steadiest figure on a busy machine.
                var means: [Double] = []
                for _ in 0..<5 {
                    means.append(query == "calendar"
                        ? try await FileStoreBench.calendar(backend, count: repetitions)
                        : try await FileStoreBench.tagSearch(backend, count: repetitions))
                }
                print(String(format: "%@: fastest batch %.1f µs per query (batches of %d)", query, means.min()! * 1e6, repetitions))
            }
            try await backend.close()
        case "sqlite":
            let pool = try DatabasePool(path: files.sqlite)
            _ = query == "calendar" ? try SQLiteBench.calendar(pool, count: 1) : try SQLiteBench.tagSearch(pool, count: 1)
            if repetitions > 0 {
                var means: [Double] = []
                for _ in 0..<5 {
                    means.append(query == "calendar"
                        ? try SQLiteBench.calendar(pool, count: repetitions) : try SQLiteBench.tagSearch(pool, count: repetitions))
                }
                print(String(format: "%@: fastest batch %.1f µs per query (batches of %d)", query, means.min()! * 1e6, repetitions))
            }
            try pool.close()
        default:
            throw BenchmarkError(Options.usage)
        }
    }
}
