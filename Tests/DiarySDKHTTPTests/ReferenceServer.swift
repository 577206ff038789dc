import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference server (Examples/DiaryServer) running as a child process for this test run.
///
/// One server serves the whole test process, storing through the file store in a temporary directory; every
/// conformance world is an isolated world inside it (`POST /v1/_test/worlds`, its own store directory). The binary comes from `DIARY_SERVER_BIN`, or is built with
/// `swift build --package-path Examples/DiaryServer`. The server exits when this process closes its stdin, so it never
/// outlives the tests.
final class ReferenceServer: @unchecked Sendable {
    let baseURL: URL
    /// Where the server's standard output (its start-up lines and request log) goes.
    let logURL: URL
    private let process: Process

    private init(baseURL: URL, logURL: URL, process: Process) {
        self.baseURL = baseURL
        self.logURL = logURL
        self.process = process
    }

    /// The shared server, started on first use.
    static func shared() async throws -> ReferenceServer {
        try await starting.value
    }

    /// The shared server runs the conformance suite, whose worlds sign up and sign in more often than a person
    /// would (each world is its own bucket in test mode); the limit itself is tested on a server of its own. Each
    /// world keeps the last ``changeLogRows`` transactions for change streams that resume, so the check of a
    /// position older than that runs over HTTP too.
    private static let starting = Task {
        try await start(
            extraArguments: ["--auth-rate-limit", "100", "--change-log-rows", String(changeLogRows)] + contractLogArguments)
    }

    /// How many committed transactions each world of the shared server keeps for resuming change streams.
    static let changeLogRows = 64

    /// `--contract-log PATH` when `DIARY_CONTRACT_LOG` names a file: the server appends the exchanges of recorded
    /// worlds (the HTTP conformance run) there, and scripts/test.sh validates them against docs/openapi.yaml.
    private static var contractLogArguments: [String] {
        guard let path = ProcessInfo.processInfo.environment["DIARY_CONTRACT_LOG"], !path.isEmpty else { return [] }
        return ["--contract-log", path]
    }

    /// The repository root, from this file's path.
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Starts a server. Its request log goes to a temporary file, which
    /// is also where the port it picked is read from.
    /// - Parameters:
    ///   - extraArguments: Flags after the usual ones.
    ///   - environment: Variables added to this process's environment; with `DIARY_DATABASE_URL` the server runs on
    ///     PostgreSQL and gets no `--data-dir`.
    ///   - dataDirectory: The `--data-dir` (a restart passes the one its first run used); a fresh one by default.
    static func start(
        extraArguments: [String], environment: [String: String] = [:], dataDirectory: URL? = nil
    ) async throws -> ReferenceServer {
        let binary = try locateBinary()
        let name = "diary-server-\(UUID().uuidString)"
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent(name + ".log")
        let dataDirectory = dataDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        let storageArguments = environment["DIARY_DATABASE_URL"] == nil ? ["--data-dir", dataDirectory.path] : []
        // A server given a key file (DIARY_JWT_KEYS_FILE) signs with those keys, and a single secret would conflict.
        let secretArguments = environment["DIARY_JWT_KEYS_FILE"] == nil ? ["--jwt-secret", jwtSecret] : []
        process.arguments = ["--hostname", "127.0.0.1", "--port", "0"] + storageArguments + [
            "--test-mode", "--exit-on-stdin-close",
        ] + secretArguments + extraArguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        process.standardError = FileHandle.standardError
        try process.run()
        keepAlive.withLock { $0.append(input) }
        for _ in 0..<3000 {
            let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on 127.0.0.1:") {
                let rest = text[range.upperBound...]
                let digits = rest.prefix { $0.isNumber }
                if let port = Int(digits), rest.dropFirst(digits.count).first == "\n" {
                    let server = ReferenceServer(
                        baseURL: URL(string: "http://127.0.0.1:\(port)")!, logURL: logURL, process: process)
                    let health = try await TestClient(baseURL: server.baseURL).send("GET", "/health")
                    guard health.status == 200 else { throw ServerError("/health answered \(health.status)") }
                    return server
                }
            }
            guard process.isRunning else { throw ServerError("the server exited with status \(process.terminationStatus) before listening") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        process.terminate()
        throw ServerError("the server did not start listening within 60 s")
    }

    /// The server's exit status, or `nil` while it runs.
    var exitStatus: Int32? {
        process.isRunning ? nil : process.terminationStatus
    }

    /// What the server has written to standard output so far.
    var log: String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
    }

    /// Stops the server now (a test that starts servers of its own).
    func stop() {
        if process.isRunning { process.terminate() }
    }

    /// Stops the server and waits until its process has exited (up to 60 s), so another can open its data.
    func stopAndWait() async throws {
        stop()
        for _ in 0..<3000 where process.isRunning {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        guard !process.isRunning else { throw ServerError("the server did not exit within 60 s of SIGTERM") }
    }

    /// Kills the server with SIGKILL (it gets no chance to finish anything) and waits until its process has gone.
    func killAbruptly() async throws {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for _ in 0..<3000 where process.isRunning {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        guard !process.isRunning else { throw ServerError("the server did not exit within 60 s of SIGKILL") }
        guard process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL else {
            throw ServerError("the server ended by \(process.terminationReason) \(process.terminationStatus), not SIGKILL")
        }
    }

    /// The signing secret the test servers use, so tests can mint expired tokens.
    static let jwtSecret = "diary-test-secret-\(UUID().uuidString)"

    private static let keepAlive = Locked<[Pipe]>([])

    static func locateBinary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["DIARY_SERVER_BIN"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw ServerError("DIARY_SERVER_BIN=\(path) is not an executable")
            }
            return URL(fileURLWithPath: path)
        }
        let package = repositoryRoot.appendingPathComponent("Examples/DiaryServer").path
        try run(["swift", "build", "--package-path", package, "--product", "DiaryServer"])
        let binPath = try run(["swift", "build", "--package-path", package, "--show-bin-path"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let binary = URL(fileURLWithPath: binPath).appendingPathComponent("DiaryServer")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw ServerError("building the reference server produced no binary at \(binary.path)")
        }
        return binary
    }

    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServerError("`\(arguments.joined(separator: " "))` failed with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A failure to obtain or start the reference server: the tests fail loudly instead of being skipped.
struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
