import Foundation
import Testing

/// `diary` on a store a crash or a bad disk left behind: a torn final write, a record damaged in the middle.
@Suite("diary on damaged stores")
struct DiaryCLIStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-cli-\(UUID().uuidString)")

    func launch(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
        try ExampleProgramTests.launch("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path])
    }

    func diary(_ arguments: String...) throws -> String {
        try ExampleProgramTests.run("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path])
    }

    /// A store with three entries, and its journal.
    func makeStore() throws -> URL {
        _ = try diary("signup", "--email", "d@example.com", "--password", "password123", "--nickname", "damaged")
        for (day, body) in [("01", "first entry"), ("02", "second entry"), ("03", "third entry")] {
            _ = try diary("write", "--day", "2026-03-\(day)", body)
        }
        let journals = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("journal-") }.sorted()
        #expect(journals.count == 1)
        return directory.appendingPathComponent(try #require(journals.last))
    }

    /// Every file's bytes, to check that nothing was written.
    func contents() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            var isDirectory: ObjCBool = false
            let path = directory.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return files
    }

    @Test func aTornFinalWriteIsReportedOnce() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try makeStore()
        var data = try Data(contentsOf: journal)
        // The records end at the last byte that is not zero; the zeros after it are reserved space. Leave there the
        // first 20 bytes of a record (a length, a checksum, the start of its JSON) as a crash mid-append does.
        let end = (data.lastIndex { $0 != 0 } ?? -1) + 1
        let torn = Data([0x64, 0, 0, 0, 1, 2, 3, 4]) + Data(#"{"sequence":"#.utf8)
        data.replaceSubrange(end..<min(data.count, end + torn.count), with: torn)
        try data.write(to: journal)

        let first = try launch("whoami")
        #expect(first.status == 0)
        #expect(first.errors == "diary: recovered: 20 bytes of an unfinished write dropped\n")
        let second = try launch("list", "--month", "2026-03")
        #expect(second.errors.isEmpty)
        #expect(second.output.contains("3 entries"))
    }

    @Test func aStoreDamagedInTheMiddleCanStillBeExportedUpToTheDamage() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try makeStore()
        var data = try Data(contentsOf: journal)
        let second = try #require(data.range(of: Data("second entry".utf8)))
        data[second.lowerBound] ^= 0x20  // "Second entry": the record fails its checksum; the third is intact after it
        try data.write(to: journal)
        let before = try contents()

        let refused = try launch("list", "--month", "2026-03")
        #expect(refused.status == 1)
        #expect(refused.errors.contains("is damaged at byte offset"))
        #expect(refused.errors.contains("`diary export --output FILE` saves what is readable"))

        let exported = try launch("export")
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.errors.contains("the store is damaged"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(exported.output.utf8)) as? [String: Any])
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(entries.compactMap { $0["body"] as? String } == ["first entry"])
        #expect((document["user"] as? [String: Any])?["nickname"] as? String == "damaged")

        let file = directory.appendingPathComponent("saved.json")
        let saved = try launch("export", "--output", file.path)
        #expect(saved.output.contains("Exported 1 entry, 0 books, 0 posts, 0 blogs to \(file.path)."))
        #expect(FileManager.default.fileExists(atPath: file.path))
        try FileManager.default.removeItem(at: file)
        #expect(try contents() == before, "reading the damaged store wrote to it")
        let write = try launch("write", "more")
        #expect(write.status == 1)
    }
}
