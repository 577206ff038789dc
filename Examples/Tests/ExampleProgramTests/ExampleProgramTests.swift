import Foundation
import Testing

/// Runs every example program and checks what it prints, so none of them can rot.
@Suite("Example programs")
struct ExampleProgramTests {
    /// The folder the example executables are built into (the test bundle sits beside them).
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Runs a built example and returns its standard output, failing on a non-zero exit.
    static func run(_ name: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> String {
        let result = try launch(name, arguments, environment: environment)
        guard result.status == 0 else {
            throw ExampleError(message: "\(name) exited \(result.status): \(result.errors)\n\(result.output)")
        }
        return result.output
    }

    /// Runs a built example and returns its exit status, standard output and standard error.
    /// Standard input is `input` when given, or empty (never the test runner's terminal, where a prompt would wait).
    static func launch(_ name: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws
        -> (status: Int32, output: String, errors: String)
    {
        let process = Process()
        process.executableURL = try executable(name)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let standardInput = Pipe()
        process.standardInput = standardInput
        try process.run()
        standardInput.fileHandleForWriting.write(Data((input ?? "").utf8))
        try standardInput.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }

    /// A built example's path.
    static func executable(_ name: String) throws -> URL {
        var candidate = productsDirectory
        while !FileManager.default.fileExists(atPath: candidate.appendingPathComponent(name).path), candidate.path != "/" {
            candidate.deleteLastPathComponent()
        }
        let executable = candidate.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ExampleError(message: "\(name) was not built next to the tests (looked from \(productsDirectory.path))")
        }
        return executable
    }

    struct ExampleError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    @Test func quickStartRunsTheReadmeFlow() throws {
        let output = try Self.run("QuickStart")
        #expect(output.contains("signed up as me"))
        #expect(output.contains("wrote “Day one” on"))
        #expect(output.contains("streak: 1 day, longest 1"))
        #expect(output.contains("feed page: [\"Day one\"]"))
        #expect(output.contains("refused: body is blank"))
    }

    @Test func feedPagingNeitherRepeatsNorSkips() throws {
        let output = try Self.run("FeedPaging")
        #expect(output.contains("  Post 23 … Post 14\n  Post 13 … Post 4\n  Post 3 … Post 1 (last)"))
        #expect(output.contains("Resumed after a saved cursor: Post 13 … Post 4"))
        #expect(output.contains("page 3 of 3: 4 posts (last page)"))
        #expect(output.contains("Every post, one at a time: 24"))
    }

    @Test func liveChangesDeliverOnlyWhatTheReaderMaySee() throws {
        let output = try Self.run("LiveChanges")
        #expect(output.contains("reader sees: post inserted"))
        #expect(output.contains("reader sees: post updated"))
        #expect(output.contains("about private entries") && output.contains(", 0 about private entries"))
    }

    @Test func theSameCodeRunsOnEveryLocalBackend() throws {
        let output = try Self.run("ChoosingABackend", ["both"])
        let expected = "entries: 1, feed: 1, anonymous to others: true"
        #expect(output.contains("memory: \(expected)"))
        #expect(output.contains("files: \(expected)"))
    }
}
