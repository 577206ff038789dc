@_spi(Storage) @testable import DiaryPostgres
@_spi(Storage) import DiarySDK
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Positions of the PostgreSQL change log: valid on every store sharing the schema and across restarts, resumed
/// without gap or repeat, and answered with `trimmed` when the log no longer reaches back or they are not its own.
@Suite("PostgreSQL change log positions", .enabled(if: PostgresTestDatabase.shouldRun))
struct PostgresChangeLogTests {
    /// The user rows `first...last` as single-mutation transactions.
    private static func users(_ range: ClosedRange<Int>) -> [[StoreMutation]] {
        range.map { [StoreMutation(before: nil, after: Rows.user($0))] }
    }

    @Test func aStreamResumesAfterAPositionOnAnotherStoreAndOnANewOneWithoutGapOrRepeat() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let first = try await PostgresTestDatabase.connect(schema: schema)
        let second = try await PostgresTestDatabase.connect(schema: schema)
        let live = first.committedChanges(after: nil)
        let collector = Task { await collectLog(live, within: .seconds(20)) { $0.count >= 6 } }
        for user in 1...5 {
            try await first.write("test.put") { try await $0.put(Rows.user(user)) }
        }
        let delivered = await collector.value
        #expect(delivered.map(\.kind) == ["opened"] + Array(repeating: "committed", count: 5))
        #expect(delivered.dropFirst().map(\.mutations) == Self.users(1...5))
        let saved = delivered[2].position  // after user 2

        // On the other store, then on a store connected after the first has shut down (a restarted server).
        let elsewhere = second.committedChanges(after: saved)
        let onward = Task { await collectLog(elsewhere, within: .seconds(20)) { $0.count >= 5 } }
        try await Task.sleep(for: .milliseconds(300))
        try await first.write("test.put") { try await $0.put(Rows.user(6)) }
        let resumed = await onward.value
        await PostgresTestDatabase.release(first)
        let restarted = try await PostgresTestDatabase.connect(schema: schema)
        let afterRestart = await collectLog(restarted.committedChanges(after: saved), within: .seconds(20)) { $0.count >= 5 }
        try await restarted.dropSchema()
        await PostgresTestDatabase.release(second)
        await PostgresTestDatabase.release(restarted)

        #expect(resumed.first == Logged(.opened(saved)))
        #expect(resumed.dropFirst().map(\.mutations) == Self.users(3...6))
        #expect(Array(resumed.dropFirst().prefix(3)) == Array(delivered.suffix(3)), "the replayed rows' positions differ between stores")
        #expect(afterRestart == resumed, "a new store resumed otherwise than a running one")
    }

    @Test(.timeLimit(.minutes(5)))
    func aResumeRacingLiveWritesDeliversEveryRowOnceInOrder() async throws {
        // The resumed stream replays from the table while writes keep committing and the other store's live feed
        // moves on: it must hand over to the live feed with nothing missed and nothing twice.
        let schema = PostgresTestDatabase.freshSchema()
        let writer = try await PostgresTestDatabase.connect(schema: schema, maximumConnections: 6)
        let watcher = try await PostgresTestDatabase.connect(schema: schema)
        let total = 120
        let reference = Task { await collectLog(writer.committedChanges(after: nil), within: .seconds(120)) { $0.count > total } }
        try await Task.sleep(for: .milliseconds(200))
        let writes = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<4 {
                    group.addTask {
                        for index in stride(from: lane + 1, through: total, by: 4) {
                            try await writer.write("test.put") { try await $0.put(Rows.user(index)) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // Resume after the first row while most writes are still to come; read the stream once they are all done
        // (it holds what it is given meanwhile).
        var saved: ChangePosition?
        for await event in writer.committedChanges(after: nil) {
            if case .committed(let position, _) = event {
                saved = position
                break
            }
        }
        let position = try #require(saved)
        let stream = watcher.committedChanges(after: position)
        try await writes.value
        let all = await reference.value
        let owed = all.filter { $0.kind == "committed" }.drop { $0.position != position }.count - 1
        let resumed = await collectLog(stream, within: .seconds(60)) { $0.count >= 1 + owed }
        try await Task.sleep(for: .milliseconds(300))
        try await writer.dropSchema()
        await PostgresTestDatabase.release(writer)
        await PostgresTestDatabase.release(watcher)

        let committed = all.filter { $0.kind == "committed" }
        #expect(committed.count == total)
        guard let start = committed.firstIndex(where: { $0.position == position }) else {
            Issue.record("the saved position is not in the reference stream")
            return
        }
        let expected = Array(committed[(start + 1)...])
        let got = resumed.filter { $0.kind == "committed" }
        #expect(resumed.first == Logged(.opened(position)))
        #expect(got.count == expected.count, "resumed \(got.count) rows, the log had \(expected.count) after the position")
        #expect(got == expected, "the resumed stream is not the log after its position")
        #expect(Set(got.map(\.position)).count == got.count, "a row came twice")
    }

    @Test func aPositionBeforeTheTrimMarkGivesTrimmedAndOneAtItResumes() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let live = storage.committedChanges(after: nil)
            let collector = Task { await collectLog(live, within: .seconds(20)) { $0.count >= 4 } }
            for user in 1...3 {
                try await storage.write("test.put") { try await $0.put(Rows.user(user)) }
            }
            let delivered = await collector.value
            try #require(delivered.count == 4)
            let positions = delivered.dropFirst().map(\.position)

            #expect(try await storage.trimChangeLog(keepingNewest: 1) == 2)
            let beforeMark = await collectLog(storage.committedChanges(after: positions[0]), within: .seconds(5)) { !$0.isEmpty }
            let atMark = await collectLog(storage.committedChanges(after: positions[1]), within: .seconds(5)) { $0.count >= 2 }
            let opening = await collectLog(storage.committedChanges(after: delivered[0].position), within: .seconds(5)) { !$0.isEmpty }
            #expect(beforeMark.map(\.kind) == ["trimmed"])
            #expect(opening.map(\.kind) == ["trimmed"], "the position the stream opened at is before the trimmed rows")
            #expect(atMark.map(\.kind) == ["opened", "committed"])
            #expect(atMark.last?.mutations == Self.users(3...3).first)

            // By time: every row goes, and only the last position still resumes.
            #expect(try await storage.trimChangeLog(committedBefore: Date().addingTimeInterval(3_600)) == 1)
            let afterAll = await collectLog(storage.committedChanges(after: positions[2]), within: .seconds(2))
            let beforeLast = await collectLog(storage.committedChanges(after: positions[1]), within: .seconds(5)) { !$0.isEmpty }
            #expect(afterAll.map(\.kind) == ["opened"])
            #expect(beforeLast.map(\.kind) == ["trimmed"])
            // A stream that is trimmed opens at the live head: what commits next follows it.
            if let head = beforeLast.first?.position {
                let next = storage.committedChanges(after: head)
                let tail = Task { await collectLog(next, within: .seconds(20)) { $0.count >= 2 } }
                try await Task.sleep(for: .milliseconds(200))
                try await storage.write("test.put") { try await $0.put(Rows.user(4)) }
                #expect(await tail.value.map(\.mutations) == [[]] + Self.users(4...4))
            }
        }
    }

    @Test func aPositionOfAnotherSchemaOrMalformedGivesTrimmed() async throws {
        let other = try await PostgresTestDatabase.connect()
        let foreign = await collectLog(other.committedChanges(after: nil), within: .seconds(5)) { !$0.isEmpty }.first?.position
        try await other.dropSchema()
        await PostgresTestDatabase.release(other)
        try await PostgresTestDatabase.withStorage { storage in
            let own = await collectLog(storage.committedChanges(after: nil), within: .seconds(5)) { !$0.isEmpty }
            let name = try #require(own.first?.position.rawValue.split(separator: ".").first.map(String.init))
            var candidates = [
                "\(name).1", "\(name).x.1", "\(name).1.-1", "\(name).01.1", "\(name).1.2.3", "m1234.5", "pgother.1.1",
                // A position past every transaction the cluster has begun is not one this log gave.
                "\(name).\(UInt64.max - 1).1",
            ].compactMap(ChangePosition.init)
            candidates += [try #require(foreign)]
            for candidate in candidates {
                let events = await collectLog(storage.committedChanges(after: candidate), within: .seconds(5)) { !$0.isEmpty }
                #expect(events.map(\.kind) == ["trimmed"], "\(candidate) was resumed")
            }
        }
    }

    @Test func aReaderThatFallsABacklogBehindHasItsStreamEndedAndResumesWithNothingSkipped() async throws {
        // A stream holds at most `changeStreamBacklog` transactions for its reader; past it, it ends (it never
        // drops one), and the reader resumes after the last position it took.
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = try PostgresTestDatabase.configuration(schema: schema)
        configuration.changeStreamBacklog = 3
        await PostgresTestDatabase.connections.acquire(4)
        let storage = try await PostgresDiaryStorage.connect(configuration: configuration, logger: PostgresTestDatabase.logger)
        let stream = storage.committedChanges(after: nil)
        // Opened, then nothing read while eight writes commit.
        var iterator = stream.makeAsyncIterator()
        let opened = await iterator.next().map(Logged.init)
        for user in 1...8 {
            try await storage.write("test.put") { try await $0.put(Rows.user(user)) }
        }
        // Once the feed's place is past the last row, it has handed every row to the stream (or ended it), whatever
        // the machine's load.
        let lastRow = try #require(try await RawSQL.strings(
            "SELECT xid::text || '.' || seq::text FROM \(schema).change_log ORDER BY xid DESC, seq DESC LIMIT 1").first)
        let parts = lastRow.split(separator: ".")
        let last = PostgresChangeFeed.Position(transaction: try #require(UInt64(parts[0])), sequence: try #require(Int64(parts[1])))
        let deadline = ContinuousClock.now + .seconds(60)
        while storage.feed.position < last, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        var held: [Logged] = []
        while let event = await iterator.next() { held.append(Logged(event)) }
        // The reader resumes as the engine does: after the last position it took, again whenever a stream ends (a
        // replay also ends a stream once it holds a backlog its reader has not taken).
        var rest: [Logged] = []
        var streams = 0
        while rest.count < 5, streams < 10 {
            let after = try #require(rest.last?.position ?? held.last?.position)
            let owed = 5 - rest.count
            let resumed = storage.committedChanges(after: after)
            if streams == 0 {
                // A reader that does not read while its stream replays: the replay either ends the stream with its
                // backlog or joins the live feed. Reading at once would race the replay (a reader that keeps up
                // never fills a backlog), so wait for the join, which must not happen, or 3 s.
                let deadline = ContinuousClock.now + .seconds(3)
                while !storage.feed.hasSubscribers, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let events = await collectLog(resumed, within: .seconds(10)) {
                $0.filter { $0.kind == "committed" }.count >= owed
            }
            #expect(events.first == Logged(.opened(after)), "a resumed stream did not open at its position")
            rest += events.filter { $0.kind == "committed" }
            streams += 1
        }
        try await storage.dropSchema()
        await storage.shutdown()
        await PostgresTestDatabase.connections.release(4)

        #expect(opened?.kind == "opened")
        #expect(held.map(\.mutations) == Self.users(1...3), "the stream did not end after its backlog, in order")
        #expect(rest.map(\.mutations) == Self.users(4...8))
        #expect(streams > 1, "a replay of five rows into a backlog of three did not end")
    }
}
