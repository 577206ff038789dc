@_spi(Storage) @testable import DiaryPostgres
@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance
import Foundation
import NIOConcurrencyHelpers
import Testing

/// What a shared database adds to the contract: several pools (processes) on one schema, concurrent writes that
/// collide, and a change feed across processes.
@Suite("PostgreSQL store under concurrency", .enabled(if: PostgresTestDatabase.shouldRun))
struct PostgresConcurrencyTests {
    @Test func twoStoresStartingTogetherMigrateTheSchemaOnceAndShareIt() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        async let first = PostgresTestDatabase.connect(schema: schema)
        async let second = PostgresTestDatabase.connect(schema: schema)
        let (a, b) = try await (first, second)
        let versions = try await RawSQL.strings("SELECT version FROM \(schema).schema_migrations")
        try await a.write("test.put") { try await $0.put(Rows.user(1)) }
        let seen = try await b.read("test.get") { try await $0.user(Rows.id(1)) }
        try await a.dropSchema()
        await PostgresTestDatabase.release(a)
        await PostgresTestDatabase.release(b)

        // The base tables, the change log's commit-time index, its append function and its transaction ids, the posts'
        // feed columns, and a table per declaration.
        #expect(versions.count == 6 + RecordKind.allCases.count + StorageSchema.allIndices.count + StorageSchema.allListings.count)
        #expect(versions.contains(PostgresMigrator.postFeedColumnsVersion))
        #expect(versions.contains("0002_change_log_committed_at"))
        #expect(versions.contains("0003_append_change"))
        #expect(versions.contains("0004_change_log_xid"))
        #expect(versions.contains(PostgresMigrator.changeLogStateVersion))
        #expect(Set(versions).count == versions.count)
        #expect(seen?.nickname == "user1")
    }

    @Test func aWriteOnOneStoreReachesTheChangeFeedOfAnother() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let writer = try await PostgresTestDatabase.connect(schema: schema)
        let watcher = try await PostgresTestDatabase.connect(schema: schema)
        let changes = watcher.committedBatches()
        try await writer.write("test.put") { try await $0.put(Rows.user(7)) }
        let received = await collect(changes, within: .seconds(5)).first
        try await writer.dropSchema()
        await PostgresTestDatabase.release(writer)
        await PostgresTestDatabase.release(watcher)
        #expect(received == [StoreMutation(before: nil, after: Rows.user(7))])
    }

    // The limit catches a write that waits for the transaction left open (it would wait for good). It counts from
    // the start of the test, which includes waiting for the shared connection budget behind the conformance suite
    // (130 checks at 4 connections each): on a loaded 2-core machine that alone took over a minute.
    @Test(.timeLimit(.minutes(5)))
    func aChangeLogRowThatCommitsLateIsDeliveredOnceAndNoWriteWaitsForIt() async throws {
        // Writes append change log rows without a lock, so a row numbered first can commit last. The feed reads
        // below the oldest running transaction: it holds back while the early row's transaction runs (a feed
        // reading past the last `seq` it saw would deliver the later row and skip the early one for good), then
        // delivers both, each once, the earlier transaction's first.
        let schema = PostgresTestDatabase.freshSchema()
        let storage = try await PostgresTestDatabase.connect(schema: schema)
        let watcher = try await PostgresTestDatabase.connect(schema: schema)
        let changes = watcher.committedBatches()
        let seen = NIOLockedValueBox<[[StoreMutation]]>([])
        let collector = Task {
            await collect(changes, within: .seconds(20)) { batches in
                seen.withLockedValue { $0 = batches }
                return batches.count >= 2
            }
        }
        let layout = storage.layout
        let logger = PostgresTestDatabase.logger
        let early = StoreMutation(before: nil, after: Rows.user(1))
        let (sequences, whileOpen) = try await storage.client.withConnection { connection in
            try await connection.run("BEGIN ISOLATION LEVEL SERIALIZABLE", logger: logger)
            try await connection.run(try PostgresMigrator(layout: layout, logger: logger).appendChangeStatement([early]), logger: logger)
            // Another write commits meanwhile, its row numbered after the open one, and does not wait for it.
            try await storage.write("test.put") { try await $0.put(Rows.user(2)) }
            try await Task.sleep(for: .milliseconds(800))
            let whileOpen = seen.withLockedValue { $0 }
            let sequences = try await RawSQL.strings("SELECT seq::text FROM \(schema).change_log ORDER BY seq")
            try await connection.run("COMMIT", logger: logger)
            return (sequences, whileOpen)
        }
        let delivered = await collector.value
        try await storage.dropSchema()
        await PostgresTestDatabase.release(storage)
        await PostgresTestDatabase.release(watcher)
        #expect(sequences.count == 1, "only the committed write's row is visible while the other is open")
        #expect(whileOpen.isEmpty, "the feed delivered past a transaction still running")
        #expect(delivered == [[early], [StoreMutation(before: nil, after: Rows.user(2))]])
    }

    // The limit catches a write that waits for the transaction left open (it would wait for good). It counts from
    // the start of the test, which includes waiting for the shared connection budget behind the conformance suite
    // (130 checks at 4 connections each): on a loaded 2-core machine that alone took over a minute.
    @Test(.timeLimit(.minutes(5)))
    func aStreamOpenedWhileATransactionIsLeftOpenIsTheLogAfterItsPositionOnEveryStore() async throws {
        // A transaction left open holds the feed's place back. A stream opened meanwhile opens at that place, and
        // carries every row after it in the log's order: the open transaction's, the one committed before the stream
        // opened (its transaction began after the open one), and the one after. A stream resuming after the opening
        // position, on another store, is the same rows with the same positions. (A feed that skipped the rows
        // committed before the stream opened, as an earlier one did, gave a resumer rows the stream never had.)
        let schema = PostgresTestDatabase.freshSchema()
        let storage = try await PostgresTestDatabase.connect(schema: schema)
        let watcher = try await PostgresTestDatabase.connect(schema: schema)
        let layout = storage.layout
        let logger = PostgresTestDatabase.logger
        let early = StoreMutation(before: nil, after: Rows.user(1))
        let live = try await storage.client.withConnection { connection in
            try await connection.run("BEGIN ISOLATION LEVEL SERIALIZABLE", logger: logger)
            try await connection.run(try PostgresMigrator(layout: layout, logger: logger).appendChangeStatement([early]), logger: logger)
            try await storage.write("test.before") { try await $0.put(Rows.user(2)) }
            // The watcher polls meanwhile (every 100 ms in tests), with no one subscribed.
            try await Task.sleep(for: .milliseconds(600))
            let changes = watcher.committedChanges(after: nil)
            let collector = Task { await collectLog(changes, within: .seconds(20)) { $0.count >= 4 } }
            try await storage.write("test.after") { try await $0.put(Rows.user(3)) }
            try await connection.run("COMMIT", logger: logger)
            return await collector.value
        }
        let opening = try #require(live.first)
        let resumed = await collectLog(storage.committedChanges(after: opening.position), within: .seconds(20)) { $0.count >= 4 }
        try await storage.dropSchema()
        await PostgresTestDatabase.release(storage)
        await PostgresTestDatabase.release(watcher)
        #expect(live.map(\.kind) == ["opened", "committed", "committed", "committed"])
        #expect(live.dropFirst().map(\.mutations) == [[early], [StoreMutation(before: nil, after: Rows.user(2))], [StoreMutation(before: nil, after: Rows.user(3))]])
        #expect(resumed == live, "a stream resuming after the opening position is not the stream that opened there")
    }

    @Test func fiftyConcurrentIncrementsOfOneRowLoseNoUpdateAndAreLoggedInCommitOrder() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let storage = try await PostgresTestDatabase.connect(schema: schema, maximumConnections: 20)
        let watcher = try await PostgresTestDatabase.connect(schema: schema)
        let changes = watcher.committedBatches()
        try await storage.write("test.seed") { try await $0.put(.post(Rows.post(1, title: "0"))) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in 1...50 {
                group.addTask {
                    try await storage.write("test.like") { transaction in
                        guard var post = try await transaction.post(Rows.id(1)), let count = Int(post.title) else {
                            throw DiaryError(.notFound, "the post")
                        }
                        post.title = String(count + 1)
                        try await transaction.put(.post(post))
                        try await transaction.put(Rows.like(user: user + 100, post: 1))
                    }
                }
            }
            try await group.waitForAll()
        }
        let (title, likes) = try await storage.read("test.count") { reader in
            (try await reader.post(Rows.id(1))?.title,
             try await reader.count(StorageSchema.likesByPost, equalTo: Rows.id(1), where: .none))
        }
        #expect(title == "50")
        #expect(likes == 50)

        // Every increment reaches another process's feed once, in the order the increments committed.
        let batches = await collect(changes, within: .seconds(10)) { $0.count == 51 }
        let titles = batches.flatMap { batch in
            batch.compactMap { mutation -> String? in if case .post(let post) = mutation.after { post.title } else { nil } }
        }
        #expect(titles == (0...50).map(String.init))
        try await storage.dropSchema()
        await PostgresTestDatabase.release(storage)
        await PostgresTestDatabase.release(watcher)
    }

    @Test func concurrentSignUpsWithOneNicknameLetExactlyOneThrough() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let harness = StorageConformanceHarness(
            makeStorage: { try await PostgresTestDatabase.connect(schema: schema, maximumConnections: 10) },
            tearDown: { storage in
                let storage = try #require(storage as? PostgresDiaryStorage)
                try await storage.dropSchema()
                await PostgresTestDatabase.release(storage)
            })
        let world = try await harness.makeWorld()
        var devices: [DiaryRepositories] = []
        for _ in 0..<12 { devices.append(try await world.makeDevice()) }
        let outcomes = await withTaskGroup(of: Result<User, DiaryError>.self) { group in
            for (number, device) in devices.enumerated() {
                group.addTask {
                    do {
                        return .success(try await device.accounts.signUp(
                            SignUpRequest(email: "racer\(number)@example.com", password: "correct horse 1", nickname: "Racer")))
                    } catch {
                        return .failure(DiaryError.wrapping(error))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        try await world.shutdown()
        let winners = outcomes.compactMap { try? $0.get() }
        let failures = outcomes.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(winners.count == 1)
        #expect(failures.count == 11)
        for failure in failures {
            #expect(failure.code == .conflict && failure.field == "nickname", "\(failure)")
        }
    }

    @Test func aUniqueIndexViolationIsAConflictOnItsFieldAndKeepsNothing() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.first") { try await $0.put(Rows.user(1, nickname: "Same")) }
            let error = await #expect(throws: DiaryError.self) {
                try await storage.write("test.second") { transaction in
                    try await transaction.put(Rows.user(3, nickname: "other"))
                    try await transaction.put(Rows.user(2, nickname: "same"))
                }
            }
            #expect(error?.code == .conflict)
            #expect(error?.field == "nickname")
            let kept = try await storage.read("test.get") { reader in
                (try await reader.user(Rows.id(2)), try await reader.user(Rows.id(3)))
            }
            #expect(kept.0 == nil && kept.1 == nil)
        }
    }

    @Test func concurrentUniqueInsertsLetExactlyOneThrough() async throws {
        try await PostgresTestDatabase.withStorage(maximumConnections: 20) { storage in
            let outcomes = await withTaskGroup(of: DiaryError?.self) { group in
                for number in 1...30 {
                    group.addTask {
                        do {
                            try await storage.write("test.put") { try await $0.put(Rows.user(number, nickname: "taken")) }
                            return nil
                        } catch {
                            return DiaryError.wrapping(error)
                        }
                    }
                }
                return await group.reduce(into: [DiaryError?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            for case let error? in outcomes { #expect(error.code == .conflict, "\(error) \(String(describing: error.underlying))") }
            let holders = try await storage.read("test.get") { try await $0.rows(StorageSchema.usersByNickname, equalTo: "taken") }
            #expect(holders.count == 1)
        }
    }
}

extension PostgresDiaryStorage {
    /// The change log's transactions from now, without their positions.
    func committedBatches() -> AsyncStream<[StoreMutation]> {
        let events = committedChanges(after: nil)
        return AsyncStream { continuation in
            let task = Task {
                for await event in events {
                    if case .committed(_, let mutations) = event { continuation.yield(mutations) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A change log event as a test compares it.
struct Logged: Equatable, Sendable, CustomStringConvertible {
    /// `opened`, `committed` or `trimmed`.
    var kind: String
    var position: ChangePosition
    var mutations: [StoreMutation] = []

    init(_ event: ChangeLogEvent) {
        switch event {
        case .opened(let position): (kind, self.position) = ("opened", position)
        case .trimmed(let position): (kind, self.position) = ("trimmed", position)
        case .committed(let position, let mutations): (kind, self.position, self.mutations) = ("committed", position, mutations)
        }
    }

    var description: String { "\(kind)(\(position))" }
}

/// The events a change log stream yields until `isDone` says enough, it ends, or `limit` passes.
func collectLog(
    _ stream: AsyncStream<ChangeLogEvent>, within limit: Duration,
    until isDone: @escaping @Sendable ([Logged]) -> Bool = { _ in false }
) async -> [Logged] {
    let seen = NIOLockedValueBox<[Logged]>([])
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await event in stream {
                let all = seen.withLockedValue { seen in
                    seen.append(Logged(event))
                    return seen
                }
                if isDone(all) { break }
            }
        }
        group.addTask { try? await Task.sleep(for: limit) }
        await group.next()
        group.cancelAll()
    }
    return seen.withLockedValue { $0 }
}

/// The batches a stream yields until `isDone` says enough or `limit` passes, whichever comes first.
func collect(
    _ stream: AsyncStream<[StoreMutation]>, within limit: Duration,
    until isDone: @escaping @Sendable ([[StoreMutation]]) -> Bool = { !$0.isEmpty }
) async -> [[StoreMutation]] {
    await withTaskGroup(of: [[StoreMutation]]?.self) { group in
        group.addTask {
            var batches: [[StoreMutation]] = []
            for await batch in stream {
                batches.append(batch)
                if isDone(batches) { break }
            }
            return batches
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        var collected: [[StoreMutation]] = []
        while let result = await group.next() {
            if let batches = result {
                collected = batches
                group.cancelAll()
            } else {
                // Time is up: cancelling ends the stream's iteration, and the collector returns what it has.
                group.cancelAll()
            }
        }
        return collected
    }
}
