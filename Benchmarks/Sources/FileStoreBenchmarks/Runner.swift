import DiarySDK
import DiarySDKFileStore
import Foundation
import GRDB

/// Runs every phase once per round, the two stores alternating which goes first, and fills the report.
final class Runner {
    /// The stores of one size that the write, query and open phases use: working copies for writing, the bare
    /// JSON and the entries for the open figure and the compaction trigger.
    struct Sized {
        var files: DiaryFiles
        var backend: FileStoreBackend
        var directory: URL
        var pool: DatabasePool
        var entries: [Diary]
        var json: Data
    }

    let options: Options
    let cache: DatasetCache
    let report = Report()
    private var sized: [Sized] = []
    private var startup: [DiaryFiles] = []
    private var posts: PostFiles?
    private var postBackend: FileStoreBackend?
    private var postPool: DatabasePool?
    private var scratch: [URL] = []
    private var nextWrite = 0

    init(options: Options) {
        self.options = options
        self.cache = DatasetCache(root: options.cache, fresh: options.fresh)
    }

    func prepare() async throws {
        log("Preparing data sets…")
        let phases = options.phases
        if !phases.isDisjoint(with: [.writes, .queries, .open]) {
            for count in options.sizes {
                let files = try await cache.diaries(count, json: true)
                let store = try DatasetCache.workingCopy(of: files.store, name: "fs-\(count)")
                let database = try DatasetCache.workingCopy(of: URL(fileURLWithPath: files.sqlite), name: "sqlite-\(count)")
                scratch += [store.deletingLastPathComponent(), database.deletingLastPathComponent()]
                let json = try Data(contentsOf: files.json)
                sized.append(Sized(
                    files: files, backend: try FileStoreBackend(configuration: FileStoreBench.configuration(store)),
                    directory: store, pool: try SQLiteColumns.openPool(database.path),
                    entries: try JSONDecoder.diary().decode([Diary].self, from: json), json: json))
            }
        }
        if phases.contains(.startup) {
            for count in options.startupSizes { startup.append(try await cache.diaries(count, json: false)) }
        }
        if phases.contains(.readers) {
            let files = try await cache.posts(options.posts)
            let store = try DatasetCache.workingCopy(of: files.store, name: "posts-fs")
            let database = try DatasetCache.workingCopy(of: URL(fileURLWithPath: files.sqlite), name: "posts-sqlite")
            scratch += [store.deletingLastPathComponent(), database.deletingLastPathComponent()]
            posts = files
            postBackend = try FileStoreBackend(configuration: FileStoreBench.configuration(store))
            postPool = try SQLiteColumns.openPool(database.path)
        }
        for store in sized {  // warm-up: first writes allocate files and caches
            _ = try await FileStoreBench.writes(store.backend, count: 20, from: nextWrite)
            _ = try SQLiteBench.writes(store.pool, count: 20, from: nextWrite)
            nextWrite += 20
        }
    }

    func run() async throws {
        let start = Clock.now()
        for round in 0..<options.rounds {
            let fileFirst = round % 2 == 0
            log(String(format: "Round %d of %d (%.0f s so far)", round + 1, options.rounds, Clock.seconds(since: start)))
            if options.phases.contains(.writes) { for store in sized { try await writes(store, fileFirst: fileFirst) } }
            if options.phases.contains(.queries) { for store in sized { try await queries(store, fileFirst: fileFirst) } }
            if options.phases.contains(.open) { for store in sized { try await open(store, fileFirst: fileFirst) } }
            if options.phases.contains(.startup) { for files in startup { try startupFigures(files, fileFirst: fileFirst) } }
            if options.phases.contains(.readers) { try await readers(fileFirst: fileFirst) }
        }
        report.notes.append(String(format: "Measured in %.0f s (%d rounds, data sets prepared before).", Clock.seconds(since: start), options.rounds))
    }

    func finish() async throws {
        for store in sized {
            try await store.backend.close()
            try store.pool.close()
        }
        try await postBackend?.close()
        try postPool?.close()
        for directory in scratch { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: - Phases

    private func writes(_ store: Sized, fileFirst: Bool) async throws {
        let size = store.files.count.formatted()
        let count = options.writes
        var file: [Double] = []
        var sqlite: [Double] = []
        for side in fileFirst ? [true, false] : [false, true] {
            if side {
                file = try await FileStoreBench.writes(store.backend, count: count, from: nextWrite)
            } else {
                sqlite = try SQLiteBench.writes(store.pool, count: count, from: nextWrite)
            }
            nextWrite += count
        }
        let normal = try SQLiteBench.normalWrites(store.pool, count: count, from: nextWrite)
        nextWrite += count
        report.record("Durable single write, mean, \(size) entries", file: Stats.mean(file), sqlite: Stats.mean(sqlite), format: Format.ms)
        report.record("Durable single write, p99, \(size) entries", file: Stats.percentile(file, 99), sqlite: Stats.percentile(sqlite, 99), format: Format.ms)
        report.record("Single write with GRDB's default synchronous = NORMAL (not durable), mean, \(size) entries", file: nil, sqlite: Stats.mean(normal), format: Format.ms)

        let during = try await FileStoreBench.writesDuringCompaction(
            store.backend, directory: store.directory, entries: store.entries, count: count, from: nextWrite)
        nextWrite += count * 2
        let afterRewrite = try SQLiteBench.writesAfterBulkRewrite(store.pool, count: count, from: nextWrite)
        nextWrite += count
        if during.latencies.isEmpty {
            report.notes.append("\(size) entries: no write landed during a compaction in one round (\(during.compactions) compactions triggered).")
        }
        report.record(
            "Durable single write during a compaction (SQLite: after a bulk rewrite, checkpoint included), p99, \(size) entries",
            file: during.latencies.isEmpty ? nil : Stats.percentile(during.latencies, 99),
            sqlite: Stats.percentile(afterRewrite, 99), format: Format.ms)
        report.record(
            "… writes measured during compactions per round (compactions triggered), \(size) entries",
            file: Double(during.latencies.count), sqlite: nil, format: { String(format: "%.0f", $0) },
            ratio: Double(during.compactions), ratioLabel: "compactions", ratioFormat: { String(format: "%.0f", $0) })
    }

    private func queries(_ store: Sized, fileFirst: Bool) async throws {
        let size = store.files.count.formatted()
        let count = options.queries
        var calendar = (file: 0.0, sqlite: 0.0)
        var tags = (file: 0.0, sqlite: 0.0)
        for side in fileFirst ? [true, false] : [false, true] {
            if side {
                _ = try await FileStoreBench.calendar(store.backend, count: 10)  // warm
                calendar.file = try await FileStoreBench.calendar(store.backend, count: count)
                _ = try await FileStoreBench.tagSearch(store.backend, count: 10)
                tags.file = try await FileStoreBench.tagSearch(store.backend, count: count)
            } else {
                _ = try SQLiteBench.calendar(store.pool, count: 10)
                calendar.sqlite = try SQLiteBench.calendar(store.pool, count: count)
                _ = try SQLiteBench.tagSearch(store.pool, count: 10)
                tags.sqlite = try SQLiteBench.tagSearch(store.pool, count: count)
            }
        }
        report.record("Month calendar, warm, \(size) entries", file: calendar.file, sqlite: calendar.sqlite, format: Format.ms)
        report.record("Tag search, first page of 20, warm, \(size) entries", file: tags.file, sqlite: tags.sqlite, format: Format.ms)
    }

    private func open(_ store: Sized, fileFirst: Bool) async throws {
        let size = store.files.count.formatted()
        var decode = 0.0
        var open = 0.0
        for side in fileFirst ? [true, false] : [false, true] {
            if side {
                var backend: FileStoreBackend?
                open = try Clock.seconds {
                    backend = try FileStoreBackend(configuration: FileStoreBench.configuration(store.files.store))
                }
                try await backend?.close()
            } else {
                decode = try Clock.seconds { _ = try JSONDecoder.diary().decode([Diary].self, from: store.json) }
            }
        }
        report.record(
            "Open (in process) vs a bare JSONDecoder decode of the same entries, \(size) entries", file: open,
            sqlite: nil, format: Format.ms, ratio: open / decode, ratioLabel: "open ÷ decode")
        report.record("… the bare decode, \(size) entries", file: decode, sqlite: nil, format: Format.ms)
    }

    private func startupFigures(_ files: DiaryFiles, fileFirst: Bool) throws {
        let size = files.count.formatted()
        var file: (Double, ChildProcess.Result)?
        var sqlite: (Double, ChildProcess.Result)?
        for side in fileFirst ? [true, false] : [false, true] {
            if side {
                file = try ChildProcess.measure(kind: "file", path: files.store.path)
            } else {
                sqlite = try ChildProcess.measure(kind: "sqlite", path: files.sqlite)
            }
        }
        guard let (fileSeconds, fileResult) = file, let (sqliteSeconds, sqliteResult) = sqlite else { return }
        let n = Double(files.count)
        report.record("Process start → first page, \(size) entries", file: fileSeconds, sqlite: sqliteSeconds, format: Format.ms)
        report.record(
            "Resident memory per entry after open (VmRSS after − before open), \(size) entries",
            file: Double(fileResult.residentAfterOpen - fileResult.residentBefore) / n,
            sqlite: Double(sqliteResult.residentAfterOpen - sqliteResult.residentBefore) / n, format: Format.bytes,
            computeRatio: false)
        report.record(
            "Peak resident memory while opening and reading page 1 (VmHWM), \(size) entries",
            file: Double(fileResult.peak), sqlite: Double(sqliteResult.peak), format: Format.mib, computeRatio: false)
    }

    private func readers(fileFirst: Bool) async throws {
        guard let posts, let postBackend, let postPool else { return }
        var file = ReaderUnderWriter.Outcome()
        var sqlite = ReaderUnderWriter.Outcome()
        for side in fileFirst ? [true, false] : [false, true] {
            if side {
                file = try await ReaderUnderWriter.fileStore(
                    postBackend, files: posts, budget: options.readerSeconds, minimum: 10, maximum: 2_000)
            } else {
                sqlite = try await ReaderUnderWriter.sqlite(
                    postPool, files: posts, budget: options.readerSeconds, minimum: 10, maximum: 2_000)
            }
        }
        let size = posts.count.formatted()
        for query in ReaderUnderWriter.Query.allCases {
            let fileValues = file.latencies[query] ?? []
            let sqliteValues = sqlite.latencies[query] ?? []
            report.record(
                "Reader under a writer: \(query.rawValue), p99, \(size) posts", file: Stats.percentile(fileValues, 99),
                sqlite: Stats.percentile(sqliteValues, 99), format: Format.ms)
            report.record(
                "… median, \(query.rawValue)", file: Stats.median(fileValues), sqlite: Stats.median(sqliteValues),
                format: Format.ms)
            report.record(
                "… reads per round, \(query.rawValue)", file: Double(fileValues.count),
                sqlite: Double(sqliteValues.count), format: { String(format: "%.0f", $0) }, computeRatio: false)
        }
        report.record(
            "… writer's commits per second during the reads", file: file.commitsPerSecond,
            sqlite: sqlite.commitsPerSecond, format: { String(format: "%.0f/s", $0) }, computeRatio: false)
    }
}
