import Foundation
import Testing

/// `diary --server URL` runs the same commands against the reference server (Examples/DiaryServer), which keeps its
/// data in a file store.
@Suite("diary against the reference server")
struct DiaryCLIServerTests {
    @Test func theSameCommandsWorkOverHTTP() async throws {
        let serverData = FileManager.default.temporaryDirectory.appendingPathComponent("diary-server-\(UUID().uuidString)")
        let cliData = FileManager.default.temporaryDirectory.appendingPathComponent("diary-cli-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: serverData)
            try? FileManager.default.removeItem(at: cliData)
        }
        let server = try await RunningServer.start(dataDirectory: serverData)
        defer { server.stop() }
        func diary(_ arguments: String...) throws -> String {
            try ExampleProgramTests.run(
                "diary", arguments, environment: ["DIARY_DATA_DIR": cliData.path, "DIARY_SERVER": server.url])
        }
        _ = try diary("signup", "--email", "remote@example.com", "--password", "password123", "--nickname", "remote")
        _ = try diary("write", "--day", "2026-03-10", "--mood", "😌", "Written", "over", "HTTP")
        let listed = try diary("list", "--month", "2026-03", "--json")
        let entries = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
        #expect(entries?.first?["body"] as? String == "Written over HTTP")
        _ = try diary("post", "Remote", "post", "body")
        #expect(try diary("feed").contains("remote"))
        #expect(try diary("whoami").contains("remote <remote@example.com>"))
        #expect(FileManager.default.fileExists(atPath: serverData.appendingPathComponent("store.json").path))
        #expect(!FileManager.default.fileExists(atPath: cliData.appendingPathComponent("store.json").path))
    }
}

/// The reference server as a child process on a free loopback port.
struct RunningServer {
    let url: String
    let process: Process
    let input: Pipe
    /// The server's standard output: its log, one line per request.
    let log: URL

    static func start(dataDirectory: URL) async throws -> RunningServer {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("diary-server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = try binary()
        process.arguments = [
            "--hostname", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path, "--jwt-secret",
            "cli-test-\(UUID().uuidString)", "--exit-on-stdin-close",
        ]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: log)
        try process.run()
        for _ in 0..<1500 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on 127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits), text[range.upperBound...].dropFirst(digits.count).first == "\n" {
                    return RunningServer(url: "http://127.0.0.1:\(port)", process: process, input: input, log: log)
                }
            }
            guard process.isRunning else {
                throw ExampleProgramTests.ExampleError(message: "the server exited with \(process.terminationStatus)")
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        process.terminate()
        throw ExampleProgramTests.ExampleError(message: "the server did not start within 30 s")
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// `DIARY_SERVER_BIN` (set by scripts/test.sh), or the server package built from this repository.
    static func binary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["DIARY_SERVER_BIN"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("DiaryServer").path
        let build = Process()
        build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        build.arguments = ["swift", "build", "--package-path", package, "--product", "DiaryServer", "--show-bin-path"]
        let output = Pipe()
        build.standardOutput = output
        try build.run()
        let path = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        build.waitUntilExit()
        let binary = URL(fileURLWithPath: path).appendingPathComponent("DiaryServer")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ExampleProgramTests.ExampleError(
                message: "the reference server is not built: run ./scripts/test.sh or set DIARY_SERVER_BIN")
        }
        return binary
    }
}
