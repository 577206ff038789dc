import Foundation
import Testing

/// Runs the guides' end-to-end snippets (the DocSnippets executable) as their readers would: twice on the same
/// store where the guide says to run it, with `FileStoreBackend.defaultDirectory` in a folder of the test's own.
@Suite("Documentation snippets, run")
struct DocSnippetRunTests {
    /// Runs the DocSnippets executable with a snippet's name; fails on a non-zero exit.
    static func run(_ arguments: [String], dataHome: URL) throws -> String {
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: candidate.appendingPathComponent("DocSnippets").path),
            candidate.path != "/"
        {
            candidate.deleteLastPathComponent()
        }
        let process = Process()
        process.executableURL = candidate.appendingPathComponent("DocSnippets")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            let errors = String(decoding: errorData, as: UTF8.self)
            throw SnippetError("DocSnippets \(arguments) exited \(process.terminationStatus): \(errors)\n\(text)")
        }
        return text
    }

    /// A fresh folder for XDG_DATA_HOME, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doc-snippets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    // FileStoreBackend.defaultDirectory follows XDG_DATA_HOME on Linux only (Apple platforms use Application Support).
    #if os(Linux)
        @Test func theReadmeQuickStartRunsTwiceOnOneStore() throws {
            let home = try Self.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: home) }
            let first = try Self.run(["readme-quick-start"], dataHome: home)
            #expect(first.contains("1 day(s) written this month, streak 1"))
            #expect(first.contains("[\"Day one\"]"))
            #expect(first.contains("body blank"))
            let second = try Self.run(["readme-quick-start"], dataHome: home)
            #expect(second.contains("streak 1"))
            #expect(second.contains("[\"Day one\", \"Day one\"]"))
            #expect(second.contains("body blank"))
            #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("diarysdk").path))
        }

        @Test func gettingStartedSignsUpOnAFreshStoreAndRestoresTheSessionAfter() throws {
            let home = try Self.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: home) }
            #expect(try Self.run(["getting-started"], dataHome: home).contains("signed in as me; 0 posts in the feed"))
            #expect(try Self.run(["getting-started"], dataHome: home).contains("signed in as me; 0 posts in the feed"))
            // Signed out (the session file gone), the next launch signs in with the account the first one made.
            try FileManager.default.removeItem(at: home.appendingPathComponent("diarysdk/session.json"))
            #expect(try Self.run(["getting-started"], dataHome: home).contains("signed in as me"))
        }

        @Test func theFileStoreBackendExampleRunsTwice() throws {
            let home = try Self.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: home) }
            _ = try Self.run(["file-store-backend"], dataHome: home)
            _ = try Self.run(["file-store-backend"], dataHome: home)
        }
    #endif

    @Test func choosingABackendGivesWorkingRepositories() throws {
        let home = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try Self.run(["choosing-a-backend-memory"], dataHome: home).contains("streak: 1"))
        let store = home.appendingPathComponent("store").path
        #expect(try Self.run(["choosing-a-backend-files", store], dataHome: home).contains("streak: 1"))
        #expect(try Self.run(["choosing-a-backend-files", store], dataHome: home).contains("streak: 1"))
    }

    @Test func testingGuideSnippetsRun() throws {
        let home = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let world = try Self.run(["testing-deterministic-world"], dataHome: home)
        #expect(world.contains("bob sees [\"TIL\"] by alice, liked: [true]"))
        let faults = try Self.run(["testing-failing-on-purpose"], dataHome: home)
        #expect(faults.contains("first write: unavailable"))
        #expect(faults.contains("second write: saved; entries: 1"))
    }
}
