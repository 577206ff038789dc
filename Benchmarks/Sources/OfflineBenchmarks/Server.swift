import BenchmarkServer
import Foundation

/// The reference server on the file store, which the benchmark stops and starts again on the same port with the same
/// data (so writes can be queued while it is down, as on the subway).
final class RestartableServer: @unchecked Sendable {
    let binary: String
    let dataDirectory: URL
    private(set) var running: ReferenceServerProcess?
    private(set) var port = 0

    /// The token signing secret, in a file (never on a command line), so sessions outlive a restart.
    let secretFile: URL

    init(binary: String) {
        self.binary = binary
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("offline-bench-server-\(UUID())")
        secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("offline-bench-secret-\(UUID())")
        let secret = (0..<4).map { _ in UUID().uuidString }.joined()
        _ = FileManager.default.createFile(atPath: secretFile.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts it, on a new port the first time and on the same port afterwards.
    func start() {
        // The last `--port` wins over the `--port 0` ReferenceServerProcess passes first.
        let portArguments = port == 0 ? [] : ["--port", "\(port)"]
        let started = try! ReferenceServerProcess.start(
            binary: binary, arguments: ["--data-dir", dataDirectory.path, "--test-mode"] + portArguments,
            environment: ["DIARY_JWT_SECRET_FILE": secretFile.path], logName: "offline-bench")
        running = started
        port = started.baseURL.port!
    }

    /// Removes its data and its secret (once stopped).
    func removeFiles() {
        try? FileManager.default.removeItem(at: dataDirectory)
        try? FileManager.default.removeItem(at: secretFile)
    }

    /// Stops it (closing its standard input) and waits for it to exit.
    func stop() {
        guard let running else { return }
        try? running.input.fileHandleForWriting.close()
        running.process.waitUntilExit()
        self.running = nil
    }
}
