// The file store against SQLite (GRDB, WAL, synchronous = FULL) on the same entries; docs/PERFORMANCE.md has the
// results. Run: swift run -c release --package-path Benchmarks FileStoreBenchmarks [entries] [writes] [queries]
//
// The machine may be shared, so measurements that are compared alternate between the two stores in rounds and
// the medians are reported.
//
// Profiling aid: `FileStoreBenchmarks open-only N` builds an N-entry store once (kept in the temporary directory)
// and times opening it against the bare decode; with `WRITES=1` in the environment it instead opens it and times
// 5 × 400 durable single writes, in a fresh process.
import DiarySDK
import DiarySDKFileStore
import Foundation

let arguments = CommandLine.arguments
if arguments.count > 2, arguments[1] == "open-only" {
    // Profiling aid: build a store of N entries once, then only open it.
    try await OpenOnly.run(count: Int(arguments[2]) ?? 100_000)
    exit(0)
}
let largeCount = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let writes = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
let queries = arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
let rounds = 5

// The author's id is the first id a store's SequentialIDGenerator hands out.
let author = User.ID(SequentialIDGenerator().next())
let small = Dataset(authorID: author, count: 1_000, seed: 7)
let large = Dataset(authorID: author, count: largeCount, seed: 42)
let bareJSON = try JSONEncoder.diary().encode(large.entries)

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Durable single writes per second on the four stores, in alternating blocks of `writes / rounds` (file store
/// and SQLite at 1,000 entries, then both at the large size), as medians of the blocks. Measuring both sizes in
/// the same rounds keeps the machine's load and the process's state the same for both, so their ratio shows the
/// effect of the store's size alone.
func interleavedWrites(
    small: (FileStoreBackend, GRDBPool), large: (FileStoreBackend, GRDBPool)
) async throws -> (fileSmall: Double, sqliteSmall: Double, fileLarge: Double, sqliteLarge: Double) {
    for (file, pool) in [small, large] {  // warm-up
        _ = try await FileStoreBench.writesPerSecond(file, authorID: author, count: 10)
        _ = try SQLiteBench.writesPerSecond(pool.pool, authorID: author, count: 10)
    }
    var rates: [[Double]] = [[], [], [], []]
    for _ in 0..<rounds {
        rates[0].append(try await FileStoreBench.writesPerSecond(small.0, authorID: author, count: writes / rounds))
        rates[1].append(try SQLiteBench.writesPerSecond(small.1.pool, authorID: author, count: writes / rounds))
        rates[2].append(try await FileStoreBench.writesPerSecond(large.0, authorID: author, count: writes / rounds))
        rates[3].append(try SQLiteBench.writesPerSecond(large.1.pool, authorID: author, count: writes / rounds))
    }
    return (median(rates[0]), median(rates[1]), median(rates[2]), median(rates[3]))
}

print("1,000-entry stores…")
let (smallFile, smallFileDirectory, _) = try await FileStoreBench.makeStore("fs-1k", entries: small.entries)
let (smallPool, smallPoolDirectory, _) = try SQLiteBench.makeDatabase("sqlite-1k", entries: small.entries)

print("\(largeCount)-entry stores: bulk insert…")
let (largeFile, largeFileDirectory, fileImport) = try await FileStoreBench.makeStore("fs-large", entries: large.entries)
let fileCompaction = try await Timer.seconds { try await largeFile.close() }
let (largePool, largePoolDirectory, sqliteBulk) = try SQLiteBench.makeDatabase("sqlite-large", entries: large.entries)
let (synchronous, journalMode) = try SQLiteBench.settings(largePool)

print("Open versus bare decode…")
var opens: [Double] = []
var decodes: [Double] = []
var opened: FileStoreBackend?
for round in 0..<3 {
    decodes.append(try Timer.seconds { _ = try JSONDecoder.diary().decode([Diary].self, from: bareJSON) })
    opens.append(try Timer.seconds { opened = try FileStoreBackend(configuration: FileStoreBench.configuration(largeFileDirectory)) })
    if round < 2 { try await opened?.close() }
}
let file = opened!
let snapshotBytes = try FileStoreBench.snapshotBytes(in: largeFileDirectory)

print("Queries…")
let (fileCalendar, fileSearch) = try await FileStoreBench.queries(file, authorID: author, count: queries)
let (sqliteCalendar, sqliteSearch) = try SQLiteBench.queries(largePool, authorID: author, count: queries)

print("Durable single writes at 1,000 and \(largeCount) entries…")
let (fileSmallRate, sqliteSmallRate, fileLargeRate, sqliteLargeRate) = try await interleavedWrites(
    small: (smallFile, GRDBPool(pool: smallPool)), large: (file, GRDBPool(pool: largePool)))
try await smallFile.close()
try smallPool.close()
try await file.close()
try largePool.close()
for directory in [smallFileDirectory, smallPoolDirectory, largeFileDirectory, largePoolDirectory] {
    try? FileManager.default.removeItem(at: directory)
}

func f(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
func ms(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1_000) }
let count = largeCount.formatted()
let open = median(opens)
let decode = median(decodes)

print("""

    SQLite: journal_mode = \(journalMode), synchronous = \(synchronous) (2 = FULL), read back from the writer connection
    Snapshot file: \(f(Double(snapshotBytes) / 1_048_576, 1)) MiB; the same entries as one JSON array: \(f(Double(bareJSON.count) / 1_048_576, 1)) MiB
    Writes: \(writes) per store, in \(rounds) rounds of alternating blocks over the four stores; medians of the blocks

    | Measure | File store | SQLite (GRDB) | File store vs SQLite |
    |---|---|---|---|
    | Durable single writes/s, 1,000 entries | \(f(fileSmallRate)) | \(f(sqliteSmallRate)) | \(f(fileSmallRate / sqliteSmallRate, 2))× |
    | Durable single writes/s, \(count) entries | \(f(fileLargeRate)) | \(f(sqliteLargeRate)) | \(f(fileLargeRate / sqliteLargeRate, 2))× |
    | Time per write, \(count) vs 1,000 entries | \(f(fileSmallRate / fileLargeRate, 2))× | \(f(sqliteSmallRate / sqliteLargeRate, 2))× | |
    | Bulk insert of \(count) entries, one transaction | \(f(fileImport, 2)) s (then \(f(fileCompaction, 2)) s background snapshot) | \(f(sqliteBulk, 2)) s | |
    | Open the \(count)-entry store (median of 3) | \(f(open, 3)) s | | \(f(open / decode, 2))× the bare decode |
    | Bare `JSONDecoder` decode of the same entries (median of 3) | \(f(decode, 3)) s | | |
    | Month calendar query | \(ms(fileCalendar)) | \(ms(sqliteCalendar)) | \(f(sqliteCalendar / fileCalendar, 1))× faster |
    | Tag search, first page of 20 | \(ms(fileSearch)) | \(ms(sqliteSearch)) | \(f(sqliteSearch / fileSearch, 2))× faster |
    """)
