@_spi(Storage) import DiarySDK
import DiarySDKTestSupport
import Foundation
import Testing

@testable import DiarySDKFileStore

@Suite("File store crash safety")
struct CrashTests {
    /// Rounds of: start the writer, let it acknowledge a random number of writes, SIGKILL it at a random moment
    /// (a small compaction threshold makes some kills land mid-compaction), then open the store and require every
    /// acknowledged entry.
    @Test func everyAcknowledgedWriteSurvivesSIGKILL() async throws {
        let directory = TestDirectory("crash")
        defer { directory.remove() }
        var acknowledged: Set<String> = []
        var generations: Set<Int> = []
        var tornTails = 0
        var killsMidCompaction = 0
        var log: [String] = []
        let rounds = 20
        for _ in 0..<rounds {
            // At most 400 writes a round, so a starved test task cannot let a round run long.
            let child = try ChildProcess(arguments: [directory.path, "16384", "400"])
            let target = Int.random(in: 0...80)
            let ready = await child.wait(timeout: 30) { lines in
                lines.filter { $0.hasPrefix("ack ") }.count >= target
            }
            #expect(ready, "the writer stopped early: \(child.lines.suffix(3))")
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...15_000_000))
            let lines = await child.killAndCollect()
            #expect(!lines.contains { $0.hasPrefix("open-failed") }, "\(lines.suffix(2))")
            acknowledged.formUnion(lines.filter { $0.hasPrefix("ack ") }.map { String($0.dropFirst(4)) })
            // A journal newer than the newest snapshot: the kill landed after a compaction started and before its
            // snapshot was durable.
            let files = StoreFiles.generations(in: try directory.names())
            let midCompaction = (files.journals.max() ?? 0) > (files.snapshots.max() ?? 0)
            if midCompaction { killsMidCompaction += 1 }

            let backend = try directory.open()
            let stored = Set(backend.allRecords.compactMap { record -> String? in
                if case .diary(let diary) = record { diary.id.description } else { nil }
            })
            let missing = acknowledged.subtracting(stored)
            #expect(missing.isEmpty, "lost acknowledged writes: \(missing.sorted().prefix(5))")
            // A kill tears at most the final, unacknowledged append: nothing acknowledged is reported lost.
            #expect(backend.openReport.isClean, "\(backend.openReport)")
            #expect(backend.openReport.droppedRecords <= 1)
            generations.insert(backend.openReport.generation)
            log.append("\(lines.count - 1)@g\(backend.openReport.generation)\(midCompaction ? "*" : "")")
            if backend.openReport.recoveredTornTail { tornTails += 1 }
            try await backend.close()
        }
        #expect(acknowledged.count > rounds)
        // The writer's scratch rewrites make the journal outgrow the snapshot every few dozen writes, so compactions
        // run in most rounds: some finish (the snapshot generation moves on), and some kills land during one. Once
        // the store is large, a compaction (a debug build, on a slow disk) can outlast the short rounds, so a
        // generation may stay for several rounds; what must hold is that both cases were exercised.
        #expect((generations.max() ?? 0) >= 5, "too few compactions finished: \(generations.sorted())")
        #expect(killsMidCompaction >= 2, "too few kills landed during a compaction: \(log)")
        print("crash test: \(acknowledged.count) acknowledged writes, generations \(generations.sorted()), \(killsMidCompaction) kills mid-compaction, torn tails \(tornTails); rounds \(log)")
    }
}
