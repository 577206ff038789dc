// The offline backend (issue 14) against the file store and the HTTP backend, on the reference server (file store,
// loopback, a child process):
//
// 1. Reads: entry by id, the first page of the user's entries, the month calendar and the streak through
//    `OfflineBackend.repositories.diaries` on a replica of N entries (written to the server, then refreshed into the
//    replica by the first sync after signing in) against `FileStoreBackend.repositories.diaries` holding the same entries (imported); interleaved rounds.
// 2. The first sync of N writes queued while the server was down: `backend.sync()` after the server is back, until
//    `pendingWrites` is 0 and until it returns (the refresh included), against the same N writes sent through
//    `HTTPBackend` directly, one after another and from 8 concurrent tasks.
// 3. Steady state online: a write and its delivery through the offline backend (acknowledged by the server, and
//    acknowledged locally then drained) against the same write through `HTTPBackend`; interleaved rounds.
//
//   DIARY_SERVER_BIN=<path to a release DiaryServer> \
//     swift run -c release --package-path Benchmarks OfflineBenchmarks [read sizes = 1000,10000] [sync sizes = 1000] \
//       [rounds = 5] [parts = 1,2,3]
import DiarySDK
import DiarySDKFileStore
import DiarySDKHTTP
import DiarySDKOffline
import Foundation

let password = "correct horse battery"

/// The entries written: one a day going back from today (so the streak is long and the calendar full), titles, a
/// body of about 300 characters, two tags of 40, a mood on every third; ids chosen by the client, as offline.
func drafts(_ count: Int, today: LocalDate) -> [DiaryDraft] {
    let words = ["today", "learned", "swift", "journal", "fsync", "coffee", "walk", "rain", "book", "friend", "quiet"]
    return (0..<count).map { index in
        let body = (0..<48).map { words[(index * 7 + $0 * 13) % words.count] }.joined(separator: " ")
        return DiaryDraft(
            id: Diary.ID(UUID()), day: today.adding(days: -(index % 1_500)), title: "Entry \(index)", body: body,
            mood: index % 3 == 0 ? "😊" : nil, tags: ["tag\(index % 40)", "tag\((index + 17) % 40)"])
    }
}

func offlineDevice(
    _ server: RestartableServer, _ label: String, acknowledgement: OfflineBackend.WriteAcknowledgement = .local,
    retryDelays: ClosedRange<TimeInterval> = 0.5...60, refreshInterval: TimeInterval = 60
) throws -> OfflineBackend {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-bench-\(label)-\(UUID())")
    let configuration = OfflineBackend.Configuration(
        directory: directory, serverURL: server.baseURL, acknowledgement: acknowledgement, retryDelays: retryDelays,
        refreshInterval: refreshInterval, clock: SystemClock())
    return try OfflineBackend(configuration: configuration)
}

/// Closes an offline backend and removes its directory.
func closeAndRemove(_ backend: OfflineBackend) async throws {
    try await backend.close()
    try? FileManager.default.removeItem(at: backend.configuration.directory)
}

func signUp(_ accounts: any AccountRepository, _ name: String) async throws -> User {
    try await accounts.signUp(SignUpRequest(email: "\(name)@example.com", password: password, nickname: name))
}

/// Every entry of the signed-in user, hidden ones included, newest first.
func allEntries(_ diaries: any DiaryRepository) async throws -> [Diary] {
    var entries: [Diary] = []
    let pages = PageSequence(first: .first(size: PageRequest.maximumSize)) {
        try await diaries.entries(DiaryQuery(includeHidden: true), page: $0)
    }
    for try await entry in pages.items { entries.append(entry) }
    return entries
}

/// The number of entries the server holds for a user, read with a new HTTP client.
func serverCount(_ server: RestartableServer, _ name: String) async throws -> Int {
    let sdk = HTTPBackend(configuration: .init(baseURL: server.baseURL, tokenStore: InMemorySessionStore())).repositories
    _ = try await sdk.accounts.signIn(.password(email: "\(name)@example.com", password: password))
    return try await allEntries(sdk.diaries).count
}

/// Waits until `condition` holds for the backend's sync state, polling every `interval` seconds.
func waitFor(
    _ backend: OfflineBackend, every interval: Double = 0.005, _ condition: (SyncState) -> Bool
) async throws {
    while !condition(await backend.syncState) {
        try await Task.sleep(nanoseconds: UInt64(interval * 1e9))
    }
}

// MARK: - 1 and 2

struct FirstSync {
    var count: Int
    var queueSeconds: Double
    var drainedSeconds: Double
    var syncSeconds: Double
    var syncCPUSeconds: Double
    var httpSequentialSeconds: Double
    var httpConcurrentSeconds: Double
}

/// Queues `count` writes while the server is down, syncs them after it is back, and returns the backend (online,
/// its replica holding the entries) with the figures of the first sync and the HTTP backend's.
func firstSync(_ server: RestartableServer, count: Int, today: LocalDate) async throws -> (OfflineBackend, FirstSync) {
    // A long backoff, so no retry scheduled while the server was down runs during the measured sync; no refresh
    // but the sync's own during the read measurements.
    let backend = try offlineDevice(server, "sync\(count)", retryDelays: 30...60, refreshInterval: 3_600)
    let sdk = backend.repositories
    _ = try await signUp(sdk.accounts, "offline\(count)")
    try await backend.sync()
    server.stop()

    log("  queueing \(count) writes with the server stopped")
    let queued = drafts(count, today: today)
    let queueStart = Measure.now()
    for draft in queued { _ = try await sdk.diaries.write(draft) }
    let queueSeconds = Measure.seconds(since: queueStart)
    try await waitFor(backend, every: 0.05) { !$0.isSyncing }
    let queuedCount = await backend.syncState.pendingWrites
    precondition(queuedCount == count, "\(queuedCount) writes queued, not \(count)")

    server.start()
    log("  server back; syncing (queueing took \(String(format: "%.1f", queueSeconds)) s)")
    let start = Measure.now()
    let cpu = Measure.cpuNanoseconds()
    async let drained: Double = {
        try await waitFor(backend) { $0.pendingWrites == 0 }
        return Measure.seconds(since: start)
    }()
    try await backend.sync()
    let syncSeconds = Measure.seconds(since: start)
    let syncCPU = Double(Measure.cpuNanoseconds() - cpu) / 1e9
    let drainedSeconds = try await drained
    let state = await backend.syncState
    precondition(state.pendingWrites == 0 && state.conflicts.isEmpty && state.lastError == nil, "a clean sync")
    let onServer = try await serverCount(server, "offline\(count)")
    precondition(onServer == count, "the server holds \(onServer) entries, not \(count)")

    log("  the same writes through HTTPBackend, one after another")
    let http = HTTPBackend(configuration: .init(baseURL: server.baseURL, tokenStore: InMemorySessionStore())).repositories
    _ = try await signUp(http.accounts, "http\(count)")
    let direct = drafts(count, today: today)
    let httpStart = Measure.now()
    for draft in direct { _ = try await http.diaries.write(draft) }
    let httpSeconds = Measure.seconds(since: httpStart)

    log("  the same writes through HTTPBackend from 8 concurrent tasks")
    let concurrentHTTP = HTTPBackend(
        configuration: .init(baseURL: server.baseURL, tokenStore: InMemorySessionStore())
    ).repositories
    _ = try await signUp(concurrentHTTP.accounts, "httpc\(count)")
    let concurrent = drafts(count, today: today)
    let concurrentStart = Measure.now()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<8 {
            group.addTask {
                for index in stride(from: task, to: concurrent.count, by: 8) {
                    _ = try await concurrentHTTP.diaries.write(concurrent[index])
                }
            }
        }
        try await group.waitForAll()
    }
    let concurrentSeconds = Measure.seconds(since: concurrentStart)
    let concurrentCount = try await serverCount(server, "httpc\(count)")
    precondition(concurrentCount == count)

    return (
        backend,
        FirstSync(
            count: count, queueSeconds: queueSeconds, drainedSeconds: drainedSeconds, syncSeconds: syncSeconds,
            syncCPUSeconds: syncCPU, httpSequentialSeconds: httpSeconds, httpConcurrentSeconds: concurrentSeconds)
    )
}

/// An offline backend whose replica holds `count` entries, the cheap way: the entries are written to the server
/// through `HTTPBackend` (8 tasks), then the user signs in on the offline backend and its first sync refreshes
/// them into the replica (a first sync of that many queued writes takes too long at 10,000: see the report).
func seededReplica(_ server: RestartableServer, count: Int, today: LocalDate) async throws -> OfflineBackend {
    let name = "reader\(count)"
    let http = HTTPBackend(configuration: .init(baseURL: server.baseURL, tokenStore: InMemorySessionStore())).repositories
    _ = try await signUp(http.accounts, name)
    let written = drafts(count, today: today)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<8 {
            group.addTask {
                for index in stride(from: task, to: written.count, by: 8) { _ = try await http.diaries.write(written[index]) }
            }
        }
        try await group.waitForAll()
    }
    let backend = try offlineDevice(server, "read\(count)", retryDelays: 30...60, refreshInterval: 3_600)
    _ = try await backend.repositories.accounts.signIn(.password(email: "\(name)@example.com", password: password))
    try await backend.sync()
    return backend
}

struct ReadFigures {
    var operation: String
    var count: Int
    var file: [(wall: Double, cpu: Double)] = []
    var offline: [(wall: Double, cpu: Double)] = []
}

/// The four reads on the offline backend's replica and on a file store holding the same entries.
func reads(_ backend: OfflineBackend, count: Int, rounds: Int, today: LocalDate) async throws -> [ReadFigures] {
    let offline = backend.repositories.diaries
    let entries = try await allEntries(offline)
    precondition(entries.count == count)

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-bench-file-\(UUID())")
    let fileStore = try FileStoreBackend(configuration: .init(directory: directory))
    let fileUser = try await signUp(fileStore.repositories.accounts, "file\(count)")
    try await fileStore.importEntries(entries.map { entry in
        var entry = entry
        entry.authorID = fileUser.id
        return entry
    })
    let file = fileStore.repositories.diaries

    // Both answer the same.
    let month = today.yearMonth
    let fileEntries = try await allEntries(file)
    precondition(fileEntries.map(\.id) == entries.map(\.id))
    let filePage = try await file.entries(DiaryQuery(), page: .first()).items.map(\.id)
    let offlinePage = try await offline.entries(DiaryQuery(), page: .first()).items.map(\.id)
    precondition(filePage == offlinePage)
    let fileCalendar = try await file.calendar(month, of: nil)
    let offlineCalendar = try await offline.calendar(month, of: nil)
    precondition(fileCalendar == offlineCalendar)
    let fileStreak = try await file.streak(of: nil)
    let offlineStreak = try await offline.streak(of: nil)
    precondition(fileStreak == offlineStreak, "streaks \(fileStreak) and \(offlineStreak)")

    var generator = SystemRandomNumberGenerator()
    let ids = (0..<1_000).map { _ in entries.randomElement(using: &generator)!.id }
    typealias Operation = (any DiaryRepository, Int) async throws -> Void
    let operations: [(String, Int, Operation)] = [
        ("entry by id", 2_000, { diaries, index in _ = try await diaries.entry(ids[index % ids.count]) }),
        ("first page (20)", 500, { diaries, _ in _ = try await diaries.entries(DiaryQuery(), page: .first()) }),
        ("month calendar", 500, { diaries, _ in _ = try await diaries.calendar(month, of: nil) }),
        ("streak", 200, { diaries, _ in _ = try await diaries.streak(of: nil) }),
    ]
    var figures = operations.map { ReadFigures(operation: $0.0, count: $0.1) }
    for (index, (_, calls, operation)) in operations.enumerated() {
        // Warm both (caches, the first use of each index).
        _ = try await Measure.perCall(calls / 10) { try await operation(file, $0) }
        _ = try await Measure.perCall(calls / 10) { try await operation(offline, $0) }
        for round in 0..<rounds {
            for side in round % 2 == 0 ? [0, 1] : [1, 0] {
                if side == 0 {
                    figures[index].file.append(try await Measure.perCall(calls) { try await operation(file, $0) })
                } else {
                    figures[index].offline.append(try await Measure.perCall(calls) { try await operation(offline, $0) })
                }
            }
        }
    }
    try await fileStore.close()
    try? FileManager.default.removeItem(at: directory)
    return figures
}

// MARK: - 3

struct SteadyFigures {
    var http: [Double] = []
    var acknowledged: [Double] = []
    var local: [Double] = []
    var localReturn: [Double] = []
}

func steadyState(_ server: RestartableServer, writes: Int, rounds: Int, today: LocalDate) async throws -> SteadyFigures {
    let http = HTTPBackend(configuration: .init(baseURL: server.baseURL, tokenStore: InMemorySessionStore())).repositories
    _ = try await signUp(http.accounts, "steadyhttp")
    let acknowledged = try offlineDevice(server, "steady-ack", acknowledgement: .serverWhenReachable)
    _ = try await signUp(acknowledged.repositories.accounts, "steadyack")
    try await acknowledged.sync()
    let local = try offlineDevice(server, "steady-local")
    _ = try await signUp(local.repositories.accounts, "steadylocal")
    try await local.sync()

    var figures = SteadyFigures()
    for round in 0..<rounds {
        let order = [0, 1, 2].rotated(by: round % 3)
        for side in order {
            let batch = drafts(writes, today: today)
            switch side {
            case 0:
                let diaries = http.diaries
                figures.http.append(try await Measure.perCall(writes) { _ = try await diaries.write(batch[$0]) }.wall)
            case 1:
                let diaries = acknowledged.repositories.diaries
                figures.acknowledged.append(
                    try await Measure.perCall(writes) { _ = try await diaries.write(batch[$0]) }.wall)
            default:
                // Written as fast as the app likes (acknowledged on the device), then drained by the sync.
                let diaries = local.repositories.diaries
                let start = Measure.now()
                for draft in batch { _ = try await diaries.write(draft) }
                figures.localReturn.append(Double(Measure.now() - start) / 1_000 / Double(writes))
                try await waitFor(local) { $0.pendingWrites == 0 && !$0.isSyncing }
                figures.local.append(Double(Measure.now() - start) / 1_000 / Double(writes))
            }
        }
    }
    let localCount = try await serverCount(server, "steadylocal")
    let acknowledgedCount = try await serverCount(server, "steadyack")
    precondition(localCount == writes * rounds && acknowledgedCount == writes * rounds)
    try await closeAndRemove(acknowledged)
    try await closeAndRemove(local)
    return figures
}

extension Array {
    func rotated(by count: Int) -> [Element] { Array(self[count...] + self[..<count]) }
}

// MARK: - Main

guard let binary = ProcessInfo.processInfo.environment["DIARY_SERVER_BIN"] else {
    log("set DIARY_SERVER_BIN to a DiaryServer binary")
    exit(2)
}
let arguments = Array(CommandLine.arguments.dropFirst())
func sizes(_ index: Int, _ defaults: [Int]) -> [Int] {
    arguments.count > index ? arguments[index].split(separator: ",").compactMap { Int($0) } : defaults
}
let readSizes = sizes(0, [1_000, 10_000])
let syncSizes = sizes(1, [1_000])
let rounds = max(arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5, 3)
let parts = Set(sizes(3, [1, 2, 3]))
let today = LocalDate(Date(), in: .current)

let server = RestartableServer(binary: binary)
server.start()
defer {
    server.stop()
    server.removeFiles()
}
print("Load average at start: \(Measure.loadAverage())")

var syncs: [FirstSync] = []
var readTables: [(Int, [ReadFigures])] = []
if parts.contains(1) {
    for size in readSizes {
        log("reads on \(size) entries, \(rounds) rounds")
        let backend = try await seededReplica(server, count: size, today: today)
        readTables.append((size, try await reads(backend, count: size, rounds: rounds, today: today)))
        print("Reads on \(size): load average \(Measure.loadAverage())")
        try await closeAndRemove(backend)
    }
}
if parts.contains(2) {
    for size in syncSizes {
        log("first sync of \(size) writes")
        let (backend, figures) = try await firstSync(server, count: size, today: today)
        syncs.append(figures)
        print("First sync of \(size): load average \(Measure.loadAverage())")
        try await closeAndRemove(backend)
    }
}

if !readTables.isEmpty {
    print("")
    print("Reads, µs per call: median (min–max) over \(rounds) interleaved rounds; ratio = offline / file store per round")
    print("| Entries | Read | calls | FileStoreBackend wall | OfflineBackend wall | ratio (wall) | ratio (process CPU) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for (size, figures) in readTables {
        for figure in figures {
            let wallRatios = zip(figure.offline, figure.file).map { $0.wall / $1.wall }
            let cpuRatios = zip(figure.offline, figure.file).map { $0.cpu / $1.cpu }
            print(
                "| \(size) | \(figure.operation) | \(figure.count) | \(Measure.summary(figure.file.map(\.wall), "%.1f")) | "
                    + "\(Measure.summary(figure.offline.map(\.wall), "%.1f")) | \(Measure.summary(wallRatios, "%.2f"))× | "
                    + "\(Measure.summary(cpuRatios, "%.2f"))× |")
        }
    }
}

if !syncs.isEmpty {
    print("")
    print("First sync of writes queued while the server was down, seconds (one run each)")
    print("| Writes | queueing offline | sync: pendingWrites 0 | sync() returned (refresh incl.) | sync CPU (client) | HTTPBackend sequential | HTTPBackend 8 tasks |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for sync in syncs {
        print(
            String(
                format: "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |", sync.count, sync.queueSeconds,
                sync.drainedSeconds, sync.syncSeconds, sync.syncCPUSeconds, sync.httpSequentialSeconds,
                sync.httpConcurrentSeconds))
    }
}

if parts.contains(3) {
    let writes = 200
    log("steady state: \(writes) writes per side, \(rounds) rounds")
    let steady = try await steadyState(server, writes: writes, rounds: rounds, today: today)
    print("")
    print("Steady state online, µs per write, \(writes) writes per side and round: median (min–max) over \(rounds) rounds; load average \(Measure.loadAverage())")
    print("| HTTPBackend write | Offline, .serverWhenReachable (write returns after the server's answer) | Offline, .local: write returns | Offline, .local: written and delivered |")
    print("|---:|---:|---:|---:|")
    print(
        "| \(Measure.summary(steady.http, "%.0f")) | \(Measure.summary(steady.acknowledged, "%.0f")) | "
            + "\(Measure.summary(steady.localReturn, "%.0f")) | \(Measure.summary(steady.local, "%.0f")) |")
}
print("Load average at end: \(Measure.loadAverage())")
