import DiarySDK
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference server (Examples/DiaryServer) running as a child process for this test run.
///
/// One server serves the whole test process; every conformance world is an isolated world inside it
/// (`POST /v1/_test/worlds`). The binary comes from `DIARY_SERVER_BIN`, or is built with
/// `swift build --package-path Examples/DiaryServer`. The server exits when this process closes its stdin, so it never
/// outlives the tests.
final class ReferenceServer: @unchecked Sendable {
    let baseURL: URL
    private let process: Process

    private init(baseURL: URL, process: Process) {
        self.baseURL = baseURL
        self.process = process
    }

    /// The shared server, started on first use.
    static func shared() async throws -> ReferenceServer {
        try await starting.value
    }

    private static let starting = Task { try start(extraArguments: []) }

    /// The repository root, from this file's path.
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Starts a server of its own (for tests that need special flags).
    static func start(extraArguments: [String]) throws -> ReferenceServer {
        let binary = try locateBinary()
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "--hostname", "127.0.0.1", "--port", "0", "--in-memory", "--test-mode", "--exit-on-stdin-close",
            "--jwt-secret", jwtSecret,
        ] + extraArguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let port = try readPort(from: output.fileHandleForReading, process: process)
        // Keep draining the request log so the server never blocks on a full pipe.
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            while !reader.availableData.isEmpty {}
        }
        let server = ReferenceServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, process: process)
        keepAlive.withLock { $0.append(input) }
        return server
    }

    /// Stops a server started with ``start(extraArguments:)``.
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// The signing secret the test servers use, so tests can mint expired tokens.
    static let jwtSecret = "diary-test-secret-\(UUID().uuidString)"

    private static let keepAlive = Locked<[Pipe]>([])

    private static func readPort(from handle: FileHandle, process: Process) throws -> Int {
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty {
                throw ServerError("the server exited before listening (status \(process.isRunning ? -1 : Int(process.terminationStatus)))")
            }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: "listening on 127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits), text[range.upperBound...].dropFirst(digits.count).first == "\n" { return port }
            }
        }
        throw ServerError("the server did not start listening within 60 s")
    }

    private static func locateBinary() throws -> URL {
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
