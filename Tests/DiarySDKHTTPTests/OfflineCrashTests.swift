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
        // The replica and the server agree.
        let local = try await last.repositories.diaries.entries(DiaryQuery(), page: .first(size: 100))
        #expect(local.items.count == min(100, onServer.count))
        #expect(acknowledged.count > rounds)
        print("offline crash test: \(acknowledged.count) acknowledged writes, \(onServer.count) on the server; rounds \(log)")
        try await last.close()
        try await server.stop()
    }
}
