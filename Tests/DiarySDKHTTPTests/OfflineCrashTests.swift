import DiarySDK
import DiarySDKHTTP
import DiarySDKOffline
import DiarySDKTestSupport
import Foundation
import Testing

/// The offline backend killed at random moments: `DiarySDKOfflineCrashWriter` writes entries while its backend syncs
/// them to a real reference server (stopped for some rounds, so writes queue and the next round sends them), and is
/// killed with SIGKILL mid-write or mid-send. Every write it acknowledged must reach the server exactly once.
@Suite("Offline backend killed mid-sync")
struct OfflineCrashTests {
    @Test func everyAcknowledgedWriteReachesTheServerExactlyOnceAcrossKills() async throws {
        let server = try await OfflineBackendTests.RestartableServer()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-crash-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = OfflineBackend.Configuration(directory: directory, serverURL: server.baseURL, retryDelays: 0.05...0.2)
        configuration.server.retry = RetryPolicy(maximumAttempts: 1)
        let setup = try OfflineBackend(configuration: configuration)
        _ = try await OfflineBackendTests.signUp(setup, "crashwriter")
        try await setup.close()

        var acknowledged: [String: String] = [:]  // id → title
        var comments: [String: (entry: String, body: String)] = [:]  // comment id → its entry and body
        var log: [String] = []
        var isServerUp = true
        let rounds = 16
        for round in 0..<rounds {
            // Every fourth round runs with the server down: its writes queue, and a later round sends them.
            let wantsServer = round % 4 != 2
            if wantsServer != isServerUp {
                if wantsServer { try await server.restart() } else { try await server.stop() }
                isServerUp = wantsServer
            }
            let child = try ChildProcess(
                "DiarySDKOfflineCrashWriter", arguments: [directory.path, server.baseURL.absoluteString, "\(round)", "200"])
            let target = Int.random(in: 0...40)
            let ready = await child.wait(timeout: 60) { lines in
                lines.filter { $0.hasPrefix("ack ") }.count >= target || lines.contains { $0.hasPrefix("failed") }
            }
            #expect(ready, "the writer stopped early: \(child.lines.suffix(3))")
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...30_000_000))
            let lines = await child.killAndCollect()
            #expect(!lines.contains { $0.hasPrefix("failed") }, "\(lines.suffix(2))")
            for line in lines where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                acknowledged[String(parts[1])] = String(parts[2])
            }
            for line in lines where line.hasPrefix("comment ") {
                let parts = line.split(separator: " ")
                comments[String(parts[1]).lowercased()] = (entry: String(parts[2]), body: String(parts[3]))
            }
            log.append("\(lines.filter { $0.hasPrefix("ack ") }.count)\(isServerUp ? "" : " offline")")
        }
        if !isServerUp { try await server.restart() }

        // A last launch sends what is left.
        let last = try OfflineBackend(configuration: configuration)
        _ = try await last.repositories.accounts.restoreSession()
        var synced = false
        for _ in 0..<20 where !synced {
            do {
                try await last.sync()
                synced = await last.syncState.pendingWrites == 0
            } catch {
                try await Task.sleep(nanoseconds: 200_000_000)
            }
        }
        #expect(synced)
        let conflicts = await last.syncState.conflicts
        #expect(conflicts.isEmpty, "\(conflicts)")
        let onServer = try await OfflineBackendTests.serverEntries(server, email: "crashwriter@example.com")
        let byID = Dictionary(onServer.map { ($0.id.rawValue.uuidString.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        let missing = acknowledged.keys.filter { byID[$0.lowercased()] == nil }
        #expect(missing.isEmpty, "acknowledged writes missing on the server: \(missing.prefix(5))")
        for (id, title) in acknowledged {
            #expect(byID[id.lowercased()]?.title == title)
        }
        // Exactly once: no write made two entries.
        let titles = onServer.map(\.title)
        #expect(Set(titles).count == titles.count, "duplicated writes: \(titles.count - Set(titles).count)")
        // Every acknowledged comment is on its entry on the server, and no comment was made twice.
        let reader = HTTPBackend(configuration: .init(baseURL: server.baseURL)).repositories
        _ = try await reader.accounts.signIn(.password(email: "crashwriter@example.com", password: "correct horse battery"))
        var commentsOnServer: [DiarySDK.Comment] = []
        let commented = Set(comments.values.map { $0.entry.lowercased() })
        // Every fifth entry was commented on: those the writer acknowledged a comment on, and any whose comment was
        // sent but not acknowledged before a kill.
        for diary in onServer where commented.contains(diary.id.rawValue.uuidString.lowercased()) || diary.title.hasSuffix("4") || diary.title.hasSuffix("9") {
            commentsOnServer += try await reader.comments.comments(on: .diary(diary.id), page: .first(size: 50)).items.map(\.comment)
        }
        let commentIDs = Set(commentsOnServer.map { $0.id.rawValue.uuidString.lowercased() })
        let missingComments = comments.keys.filter { !commentIDs.contains($0) }
        #expect(missingComments.isEmpty, "acknowledged comments missing on the server: \(missingComments.prefix(5))")
        for comment in commentsOnServer {
            guard let acked = comments[comment.id.rawValue.uuidString.lowercased()] else { continue }
            #expect(comment.body == acked.body)
            #expect(comment.target == .diary(Diary.ID(try #require(UUID(uuidString: acked.entry)))))
        }
        let bodies = commentsOnServer.map(\.body)
        #expect(Set(bodies).count == bodies.count, "duplicated comments: \(bodies.count - Set(bodies).count)")
        #expect(comments.count > rounds / 2)
        // The replica and the server agree.
        let local = try await last.repositories.diaries.entries(DiaryQuery(), page: .first(size: 100))
        #expect(local.items.count == min(100, onServer.count))
        #expect(acknowledged.count > rounds)
        print(
            "offline crash test: \(acknowledged.count) acknowledged writes, \(onServer.count) on the server; \(comments.count) acknowledged comments, \(commentsOnServer.count) on the server; rounds \(log)")
        try await last.close()
        try await server.stop()
    }
}
