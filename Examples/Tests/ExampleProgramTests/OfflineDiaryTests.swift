import Foundation
import Testing

/// The `OfflineDiary` example against the reference server: a run with the server up sends its entry and comment; a
/// run with the server gone keeps both on the device, waiting to sync.
@Suite("OfflineDiary against the reference server")
struct OfflineDiaryTests {
    @Test func anEntryWrittenWithoutTheServerWaitsOnTheDevice() async throws {
        let serverData = FileManager.default.temporaryDirectory.appendingPathComponent("offline-server-\(UUID().uuidString)")
        let deviceData = FileManager.default.temporaryDirectory.appendingPathComponent("offline-device-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: serverData)
            try? FileManager.default.removeItem(at: deviceData)
        }
        let server = try await RunningServer.start(dataDirectory: serverData)
        let online = try ExampleProgramTests.run("OfflineDiary", [server.url, deviceData.path])
        #expect(online.contains("synced: nothing waits"), "\(online)")
        #expect(online.contains("1 entries on the device"), "\(online)")
        server.stop()

        let offline = try ExampleProgramTests.run("OfflineDiary", [server.url, deviceData.path])
        // The entry and the comment on it.
        #expect(offline.contains("the server could not be reached (unavailable): 2 waiting to sync"), "\(offline)")
        #expect(offline.contains("2 entries on the device"), "\(offline)")
    }
}
