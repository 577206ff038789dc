import DiarySDK
import DiarySDKFileStore
import Foundation

/// `FileStoreBenchmarks open-only N`: opens a store of N entries three times against three bare decodes (for
/// profilers), keeping the store in the temporary directory between runs; with `WRITES=1`, times durable single
/// writes into it instead.
enum OpenOnly {
    static func run(count: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diarysdk-bench-open-\(count)")
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("store.json").path) {
            let author = User.ID(SequentialIDGenerator().next())
            let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(directory))
            _ = try await backend.engine(actingAs: nil).createAccount(
                SignUpRequest(email: "bench@example.com", password: "correct horse battery", nickname: "bench"))
            try await backend.importEntries(Dataset(authorID: author, count: count).entries)
            try await backend.close()
        }
        let entries = try JSONEncoder.diary().encode(Dataset(authorID: User.ID(SequentialIDGenerator().next()), count: count).entries)
        for _ in 0..<3 {
            let seconds = try Timer.seconds { _ = try JSONDecoder.diary().decode([Diary].self, from: entries) }
            print(String(format: "bare decode: %.3f s", seconds))
        }
        if ProcessInfo.processInfo.environment["WRITES"] != nil {
            let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(directory))
            let author = User.ID(SequentialIDGenerator().next())
            for _ in 0..<5 {
                let rate = try await FileStoreBench.writesPerSecond(backend, authorID: author, count: 400)
                print(String(format: "writes: %.0f/s", rate))
            }
            try await backend.close()
            return
        }
        for _ in 0..<3 {
            var backend: FileStoreBackend?
            let seconds = try Timer.seconds { backend = try FileStoreBackend(configuration: FileStoreBench.configuration(directory)) }
            print(String(format: "open: %.3f s", seconds))
            try await backend?.close()
        }
    }
}
