import Foundation

/// The reference server (Examples/DiaryServer) run as a child process for a benchmark: on a free loopback port, its
/// log in a temporary file, and ended when the benchmark closes the server's standard input.
public struct ReferenceServerProcess {
    /// The server process.
    public let process: Process
    /// Where it listens: `http://127.0.0.1:<port>`.
    public let baseURL: URL
    /// The server's standard input: closing it ends the server (`--exit-on-stdin-close`).
    public let input: Pipe

    /// Starts the server and waits (up to a minute) until it says where it listens.
    /// - Parameters:
    ///   - binary: The `DiaryServer` executable.
    ///   - arguments: What the server is given besides `--port 0 --exit-on-stdin-close` (its store and options).
    ///   - environment: Variables added to this process's environment (a database URL never goes on the command
    ///     line).
    ///   - logName: The start of the log file's name.
    /// - Throws: What starting the process throws; a server that exits or never listens stops the benchmark.
    public static func start(
        binary: String, arguments: [String], environment: [String: String] = [:], logName: String
    ) throws -> ReferenceServerProcess {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("\(logName)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["--port", "0", "--exit-on-stdin-close"] + arguments
        if !environment.isEmpty {
            server.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let input = Pipe()
        server.standardInput = input
        server.standardOutput = try FileHandle(forWritingTo: log)
        try server.run()
        for _ in 0..<3000 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on 127.0.0.1:") {
                let rest = text[range.upperBound...]
                let digits = rest.prefix { $0.isNumber }
                if let port = Int(digits), rest.dropFirst(digits.count).first == "\n" {
                    return ReferenceServerProcess(
                        process: server, baseURL: URL(string: "http://127.0.0.1:\(port)")!, input: input)
                }
            }
            guard server.isRunning else { fatalError("the server exited before listening; its log: \(log.path)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        fatalError("the server did not start; its log: \(log.path)")
    }
}
