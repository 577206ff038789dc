import Foundation
import Testing

/// The server binary's command line and start-up output: `--help`, and secrets that never show.
@Suite("Reference server start-up")
struct ServerStartupTests {
    /// Runs the server binary until it exits or `until` appears in its output (then stops it), and answers its
    /// standard output and error together, and its exit status when it exited by itself.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], until marker: String? = nil
    ) async throws -> (output: String, status: Int32?) {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("diary-startup-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let process = Process()
        process.executableURL = try ReferenceServer.locateBinary()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let output = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = Pipe()
        try process.run()
        for _ in 0..<1500 {
            let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            if !process.isRunning {
                process.waitUntilExit()
                return ((try? String(contentsOf: outputURL, encoding: .utf8)) ?? "", process.terminationStatus)
            }
            if let marker, text.contains(marker) {
                // Let it write what follows the marker, then stop it.
                try await Task.sleep(nanoseconds: 200_000_000)
                process.terminate()
                process.waitUntilExit()
                return ((try? String(contentsOf: outputURL, encoding: .utf8)) ?? "", nil)
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        process.terminate()
        throw ServerError("the server neither exited nor printed \(marker ?? "anything expected") within 30 s")
    }

    @Test func helpDocumentsTheDatabaseAndSecretVariablesAndExitsZero() async throws {
        let (output, status) = try await Self.run(["--help"])
        #expect(status == 0)
        for name in ["DIARY_DATABASE_URL", "DIARY_DATABASE_URL_FILE", "DIARY_DATABASE_SCHEMA", "DIARY_JWT_SECRET_FILE"] {
            #expect(output.contains(name), "--help names \(name)")
        }
    }

    @Test func anUnknownFlagExitsTwo() async throws {
        let (_, status) = try await Self.run(["--no-such-flag"])
        #expect(status == 2)
    }

    @Test func theSecretFlagWarns() async throws {
        let (output, _) = try await Self.run(
            ["--in-memory", "--port", "0", "--jwt-secret", "flag-secret-value"], until: "listening on")
        #expect(output.contains(" warning diary: --jwt-secret"), "a warning-level line about the flag")
        #expect(!output.contains("flag-secret-value"))
    }

    @Test(.enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
    func theDatabasePasswordNeverShowsInTheOutput() async throws {
        let url = try #require(PostgresReferenceServer.databaseURL, "CI=true but DIARY_TEST_DATABASE_URL is not set")
        // The test cluster trusts loopback, so any password connects; it must still never be printed.
        let password = "pw-\(UUID().uuidString.prefix(8))"
        var components = try #require(URLComponents(string: url))
        components.password = password
        let withPassword = try #require(components.string)
        let (output, _) = try await Self.run(
            ["--port", "0"],
            environment: ["DIARY_DATABASE_URL": withPassword, "DIARY_DATABASE_SCHEMA": PostgresReferenceServer.freshSchema()],
            until: "listening on")
        #expect(output.contains("storage: PostgreSQL at \(components.host ?? "?"):\(components.port ?? 5432)"))
        #expect(!output.contains(password))
        #expect(!output.contains("postgres://"))
    }
}
