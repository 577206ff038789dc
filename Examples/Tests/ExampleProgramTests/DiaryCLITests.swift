import Foundation
import Testing

/// The `diary` command-line app: the demo, commands on a real file store, JSON output and error lines.
@Suite("diary command-line app")
struct DiaryCLITests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-cli-\(UUID().uuidString)")

    func diary(_ arguments: String...) throws -> String {
        try ExampleProgramTests.run("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path])
    }

    @Test func theDemoTellsTheWholeStoryAndExitsZero() throws {
        let output = try ExampleProgramTests.run("diary", ["demo"])
        for line in [
            "1. Two people sign up", "a blank entry is refused: body must not be blank [body]",
            "11 entries written on their days in Seoul", "joon joined with the code; members in turn order: minji, joon",
            "now it is joon's turn", "(anonymous)  A question", "the feed now has 3 posts",
            "the Tistory rule found https://minji.tistory.com/rss", "first sync: 4 posts imported",
            "second sync: 304 Not Modified, 0 new posts", "Current streak: 10 days · Longest: 10 days",
        ] {
            #expect(output.contains(line), "missing: \(line)")
        }
    }

    @Test func commandsWorkOnAFileStoreAcrossRuns() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try diary("signup", "--email", "cli@example.com", "--password", "password123", "--nickname", "cli")
        _ = try diary("write", "--day", "2026-03-10", "--mood", "😊", "--tag", "til", "Learned", "about", "actors")
        let listed = try diary("list", "--month", "2026-03", "--json")
        let entries = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
        #expect(entries?.count == 1)
        #expect(entries?.first?["body"] as? String == "Learned about actors")
        #expect(entries?.first?["day"] as? String == "2026-03-10")
        let calendar = try diary("calendar", "--month", "2026-03")
        #expect(calendar.contains("March 2026"))
        #expect(calendar.contains("10😊"))
        #expect(try diary("whoami").contains("cli <cli@example.com>"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("store.json").path))
    }

    @Test func errorsAreOneLineWithANonZeroExitCode() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try diary("signup", "--email", "e@example.com", "--password", "password123", "--nickname", "errors")
        _ = try diary("signout")
        let signedOut = try ExampleProgramTests.launch("diary", ["feed"], environment: ["DIARY_DATA_DIR": directory.path])
        #expect(signedOut.status == 1)
        #expect(signedOut.errors.hasPrefix("diary: no one is signed in"))
        #expect(signedOut.errors.split(separator: "\n").count == 1)
        _ = try diary("signin", "--email", "e@example.com", "--password", "password123")
        let blank = try ExampleProgramTests.launch("diary", ["write", "   "], environment: ["DIARY_DATA_DIR": directory.path])
        #expect(blank.status == 2)
        #expect(blank.errors == "diary: body must not be blank [body] (invalid_input)\n")
        #expect(!blank.errors.contains("Fatal") && !blank.output.contains("Stack"))
    }
}
