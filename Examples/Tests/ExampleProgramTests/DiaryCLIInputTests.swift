import DiarySDK
import DiarySDKConformance
import DiarySDKFileStore
import Foundation
import Testing

/// How `diary` takes what people type (ids, users, days, moods, flags) and how it reports what it refuses, each
/// checked by running the built binary on a real file store.
@Suite("diary input and errors")
struct DiaryCLIInputTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-cli-\(UUID().uuidString)")

    func launch(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
        try launch(arguments)
    }

    func launch(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try ExampleProgramTests.launch("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path])
    }

    func diary(_ arguments: String...) throws -> String {
        try diary(arguments)
    }

    func diary(_ arguments: [String]) throws -> String {
        try ExampleProgramTests.run("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path])
    }

    func signUp(_ nickname: String) throws {
        _ = try ExampleProgramTests.run(
            "diary", ["signup", "--email", "\(nickname)@example.com", "--password", "password123", "--nickname", nickname],
            environment: ["DIARY_DATA_DIR": directory.path])
    }

    func signIn(_ nickname: String) throws {
        _ = try ExampleProgramTests.run(
            "diary", ["signin", "--email", "\(nickname)@example.com", "--password", "password123"],
            environment: ["DIARY_DATA_DIR": directory.path])
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    // MARK: - 1. Bad values are refused by the subcommand, with its usage

    @Test(arguments: [
        (["write", "--day", "2026-02-30", "text"], "diary write", "'2026-02-30' is invalid for '--day <day>'"),
        (["edit", "not-an-id", "--title", "x"], "diary edit", "an id is a UUID, or its first characters"),
        (["withdraw"], "diary withdraw", "pass --yes to confirm"),
        (["comment", "hello"], "diary comment", "say what the comments are on: --post ID or --entry ID"),
        (["list", "--month", "2026-13"], "diary list", "not a month (yyyy-MM)"),
        (["report", "--reason", "rude", "--user", "bob"], "diary report", "a reason is one of spam, abuse"),
    ])
    func aBadValueShowsTheSubcommandsUsageAndExitsTwo(arguments: [String], usage: String, message: String) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ExampleProgramTests.launch("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("diary: "))
        #expect(result.errors.contains(message), "\(result.errors)")
        #expect(result.errors.contains("Usage: \(usage) "))
        #expect(!result.errors.contains("diary <subcommand>"))
        #expect(!FileManager.default.fileExists(atPath: directory.path), "a refused command opened the store")
    }

    // MARK: - 7. Exit codes and JSON

    @Test func invalidInputExitsTwoAndJSONModeReportsErrorsAsJSON() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try launch("whoami", "--server", "localhost:8931")
        #expect(server.status == 2)
        #expect(server.errors.contains("--server must be an http(s) URL"))

        let serverJSON = try launch("whoami", "--server", "localhost:8931", "--json")
        #expect(serverJSON.status == 2)
        let serverError = try json(serverJSON.errors) as? [String: [String: String]]
        #expect(serverError?["error"]?["code"] == "invalid_input")
        #expect(serverError?["error"]?["message"]?.contains("localhost:8931") == true)

        try signUp("jsonuser")
        let blank = try launch("write", "   ", "--json")
        #expect(blank.status == 2)
        let blankError = try json(blank.errors) as? [String: [String: String]]
        #expect(blankError?["error"] == ["code": "invalid_input", "message": "body must not be blank", "field": "body"])
        #expect(blank.output.isEmpty)

        let suggestions = try json(try diary("blog", "suggest", "minji.tistory.com", "--json")) as? [String]
        #expect(suggestions?.contains("https://minji.tistory.com/rss") == true)
        let signOut = try diary("signout", "--json")
        #expect((try json(signOut) as? [String: Any])?["ok"] as? Bool == true)
        let signedOut = try launch("feed", "--json")
        #expect(signedOut.status == 1)
        #expect(((try json(signedOut.errors) as? [String: [String: String]])?["error"]?["code"]) == "unauthenticated")
    }

    /// Every command but `demo` and `help`, under `--json`, prints exactly one JSON document on standard output and
    /// nothing on standard error: two users going through accounts, entries, books, the community and blogs.
    @Test func everyCommandPrintsOneJSONDocument() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let feeds = try LoopbackHTTPServer()
        defer { feeds.stop() }
        feeds.route("/feed.xml", .text(DiaryCLIBlogTests.feed(items: 2), contentType: "application/rss+xml"))
        var commands: Set<String> = []
        @discardableResult
        func document(_ arguments: String...) throws -> Any {
            let result = try launch(arguments + ["--json"])
            commands.insert(["book", "blog"].contains(arguments[0]) ? arguments.prefix(2).joined(separator: " ") : arguments[0])
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            #expect(result.errors.isEmpty, "\(arguments) wrote to standard error: \(result.errors)")
            let document = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
            return document
        }
        func id(_ value: Any) throws -> String { try #require((value as? [String: Any])?["id"] as? String) }
        func firstID(_ value: Any) throws -> String {
            let items = (value as? [String: Any])?["items"] ?? value
            return try #require((items as? [[String: Any]])?.first?["id"] as? String)
        }

        try document("signup", "--email", "ann@example.com", "--password", "password123", "--nickname", "ann")
        let entry = try id(try document("write", "--day", "2026-03-01", "--title", "First", "--mood", "happy", "body"))
        #expect(try firstID(try document("list", "--month", "2026-03")) == entry)
        for command in ["hide", "unhide", "favourite", "unfavourite"] { try document(command, entry) }
        try document("edit", entry, "--title", "Renamed")
        try document("calendar", "--month", "2026-03")
        let post = try id(try document("post", "Hello", "world"))
        #expect(try firstID(try document("feed")) == post)
        try document("search", "Hello")
        try document("comment", "--post", post, "nice")
        try document("comments", "--post", post)
        let book = try id(try document("book", "create", "Duck", "book"))
        let invite = try #require((try document("book", "invite", book) as? [String: String])?["inviteCode"])
        for command in ["members", "turn", "entries"] { try document("book", command, book) }
        try document("book", "list")
        try document("blog", "suggest", "minji.tistory.com")
        let blog = try id(try document("blog", "add", feeds.url("/feed.xml").absoluteString))
        try document("blog", "list")
        try document("blog", "sync", blog)
        try document("blog", "primary", blog)
        try document("blog", "delete", blog)
        try document("export")
        try document("whoami")
        try document("signout")

        try document("signup", "--email", "ben@example.com", "--password", "password123", "--nickname", "ben")
        try document("like", post)
        try document("likes")
        try document("unlike", post)
        for command in ["follow", "followers", "unfollow"] { try document(command, "ann") }
        try document("following")
        try document("book", "join", invite)
        try document("book", "nudge", book)
        try document("book", "leave", book)
        try document("report", "--reason", "spam", "--user", "ann")
        try document("block", "ann")
        try document("blocked")
        try document("unblock", "ann")
        try document("signout")
        try document("signin", "--email", "ann@example.com", "--password", "password123")
        try document("notifications", "--mark-read")
        try document("delete", entry)
        try document("withdraw", "--yes")

        // Every subcommand the help lists was run (so a new one has to join this test).
        func subcommands(_ arguments: String...) throws -> [String] {
            let lines = try diary(arguments + ["--help"]).split(separator: "\n", omittingEmptySubsequences: false)
            let listing = lines.drop { $0 != "SUBCOMMANDS:" }.dropFirst().prefix { !$0.isEmpty }
            return listing.compactMap { line in
                guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }   // not a wrapped abstract
                return line.split(separator: " ").first.map(String.init)
            }
        }
        let listed = Set(try subcommands() + (try subcommands("book").map { "book \($0)" }) + (try subcommands("blog").map { "blog \($0)" }))
        #expect(listed.count > 40, "\(listed.sorted())")
        let missing = listed.subtracting(commands).subtracting(["demo", "book", "blog"])
        #expect(missing.isEmpty, "not run under --json: \(missing.sorted())")
    }

    // MARK: - 3. One way to name a user

    @Test func everyCommandFindsAUserByIdPrefixNicknameOrMe() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try signUp("bob")
        _ = try diary("post", "Bob's", "first post")
        let bob = try #require(try json(try diary("whoami", "--json")) as? [String: Any])
        let bobID = try #require(bob["id"] as? String)
        try signUp("alice")
        let posts = try #require(try json(try diary("feed", "--json")) as? [String: Any])
        let postID = try #require((posts["items"] as? [[String: Any]])?.first?["id"] as? String)
        _ = try diary("like", String(postID.prefix(8)))

        // `likes --user me` works as `feed --user me` does.
        #expect(try diary("likes", "--user", "me").contains("Bob's"))
        #expect(try diary("feed", "--user", "@bob").contains("Bob's"))
        #expect(try diary("followers", "me").contains("Nobody yet."))

        _ = try diary("follow", String(bobID.prefix(6)))
        #expect(try diary("following").contains("bob"))
        _ = try diary("block", "bob")
        let blocked = try diary("blocked")
        #expect(blocked.contains("bob") && blocked.contains(String(bobID.prefix(8))))
        // The blocked user is found by the nickname `blocked` lists, though search no longer shows them.
        #expect(try diary("unblock", "bob").contains("Unblocked bob."))
        #expect(try diary("blocked").contains("You have not blocked anyone."))

        let unknown = try launch("follow", "nobody-here")
        #expect(unknown.status == 1)
        #expect(unknown.errors.contains("no user is called 'nobody-here'"))
    }

    // MARK: - 2. Id prefixes and short ids

    @Test func tablesShowShortIdsThatCommandsTakeBack() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try signUp("ids")
        _ = try diary("write", "--day", "2026-03-01", "--title", "First", "one")
        _ = try diary("write", "--day", "2026-03-02", "--title", "Second", "two")
        let entries = try #require(try json(try diary("list", "--month", "2026-03", "--json")) as? [[String: Any]])
        let first = try #require(entries.first { $0["title"] as? String == "First" }?["id"] as? String)
        let table = try diary("list", "--month", "2026-03")
        #expect(table.contains(String(first.prefix(8))))
        #expect(!table.contains(first), "the table shows whole ids")

        #expect(try diary("edit", String(first.prefix(8)), "--title", "Renamed").contains("Updated entry \(first.prefix(8))"))
        #expect(try diary("edit", first, "--body", "whole ids still work").contains("Updated"))

        // Comments show their ids, so a reply needs no --json.
        _ = try diary("comment", "--entry", String(first.prefix(5)), "A", "comment")
        let comments = try diary("comments", "--entry", String(first.prefix(5)))
        let commentID = try #require(comments.split(separator: " ").first.map(String.init))
        #expect(commentID.count == 8)
        _ = try diary("comment", "--entry", String(first.prefix(5)), "--reply-to", commentID, "A", "reply")
        #expect(try diary("comments", "--entry", String(first.prefix(5))).contains("↳ "))

        let missing = try launch("delete", "ffff0000")
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no entry has an id starting with 'ffff0000'"))
    }

    @Test func anAmbiguousPrefixListsTheCandidates() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // Sequential ids 00000000-…-000000000001, …0002, …: every prefix shorter than the whole id is shared.
        let backend = try FileStoreBackend(configuration: .init(directory: directory, ids: SequentialIDGenerator()))
        _ = try await backend.repositories.accounts.signUp(
            .init(email: "seq@example.com", password: "password123", nickname: "seq"))
        let one = try await backend.repositories.diaries.write(DiaryDraft(title: "One", body: "first"))
        let two = try await backend.repositories.diaries.write(DiaryDraft(title: "Two", body: "second"))
        try await backend.close()

        let ambiguous = try launch("hide", "0000")
        #expect(ambiguous.status == 2)
        #expect(ambiguous.errors.contains("'0000' is ambiguous"), "\(ambiguous.errors)")
        #expect(ambiguous.errors.contains("“One”") && ambiguous.errors.contains("“Two”"))
        #expect(try diary("hide", two.id.description).contains("Hidden."))
        #expect(try diary("unhide", one.id.description.filter { $0 != "-" }).contains("Visible again."))
    }

    // MARK: - 4. Moods

    @Test func moodsAreNamedOrOneEmojiAndTheAllowedOnesAreListed() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try signUp("moody")
        #expect(try diary("write", "--help").contains("happy 😊, sad 😢, angry 😡, calm 😌, tired 😴"))
        _ = try diary("write", "--day", "2026-03-05", "--mood", "happy", "Named")
        _ = try diary("write", "--day", "2026-03-06", "--mood", "🦆", "Duck")
        let entries = try #require(try json(try diary("list", "--month", "2026-03", "--json")) as? [[String: Any]])
        #expect(Set(entries.compactMap { $0["mood"] as? String }) == ["😊", "🦆"])
        #expect(try diary("calendar", "--month", "2026-03").contains(" 5😊"))

        let word = try launch("write", "--mood", "joyful", "text")
        #expect(word.status == 2)
        #expect(word.errors.contains("a mood is one of happy 😊, sad 😢, angry 😡, calm 😌, tired 😴, or any other single emoji"))
        #expect(try launch("comment", "--entry", "abcd", "--mood", "ok", "x").status == 2)
    }

    // MARK: - 5. One target, one negation style, no silent no-op

    @Test func conflictingOrEmptyRequestsAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try signUp("strict")
        _ = try diary("write", "--day", "2026-03-07", "--title", "Same", "body")
        let id = try #require((try json(try diary("list", "--month", "2026-03", "--json")) as? [[String: Any]])?.first?["id"] as? String)

        let both = try launch("comment", "--post", "abcd1234", "--entry", id, "hi")
        #expect(both.status == 2)
        #expect(both.errors.contains("give --post or --entry, not both"))

        let nothing = try launch("edit", id)
        #expect(nothing.status == 2)
        #expect(nothing.errors.contains("nothing to change: give --title, --body or --mood"))
        #expect(try diary("edit", id, "--title", "Same").contains("Nothing changed"))

        #expect(try diary("favourite", id).contains("★ Favourite."))
        #expect(try diary("unfavourite", id).contains("Unmarked."))
        #expect(try diary("hide", id).contains("Hidden."))
        #expect(try diary("unhide", id).contains("Visible again."))
        // The old spellings still work, with a warning.
        let old = try launch("hide", id, "--unhide")
        #expect(old.status == 0 && old.output.contains("Visible again."))
        #expect(old.errors.contains("deprecated"))
        #expect(!(try diary("favourite", "--help")).contains("--remove"))
    }

    // MARK: - 6. Reading never creates a store

    @Test func readOnlyCommandsNeverCreateAStore() throws {
        let deep = directory.appendingPathComponent("nonexistent/deep/x")
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in [["whoami"], ["list"], ["feed"], ["calendar"], ["blog", "list"]] {
            let result = try ExampleProgramTests.launch("diary", command + ["--data-dir", deep.path])
            #expect(result.status == 1)
            #expect(result.errors.contains("there is no diary in \(deep.path): run `diary signup` first"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    // MARK: - 9. Notifications, alignment, empty listings

    @Test func notificationsNameTheBookAndTablesAlignWideText() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try signUp("joon")
        try signUp("minji")
        #expect(try diary("book", "list").contains("No books yet"))
        #expect(try diary("notifications").contains("No notifications."))
        #expect(try diary("list", "--month", "2020-01").contains("No entries."))
        let book = try #require(try json(try diary("book", "create", "Duck", "book", "--json")) as? [String: Any])
        let code = try #require(try json(try diary("book", "invite", String((book["id"] as? String ?? "").prefix(8)), "--json")) as? [String: String])
        try signIn("joon")
        _ = try diary("book", "join", try #require(code["inviteCode"]))
        try signIn("minji")
        _ = try diary("write", "--book", String((book["id"] as? String ?? "").prefix(8)), "--day", "2026-03-02", "Our page")
        try signIn("joon")
        #expect(try diary("notifications").contains("minji wrote in Duck book"))

        _ = try diary("write", "--day", "2026-03-02", "--mood", "🦆", "--title", "★ 오리", "Duck day")
        _ = try diary("write", "--day", "2026-03-01", "--mood", "😊", "--title", "Duck", "Happy day")
        // "Cafe" + U+0301 COMBINING ACUTE ACCENT: four columns.
        _ = try diary("write", "--day", "2026-03-03", "--mood", "calm", "--title", "Cafe\u{301}", "Latte")
        let lines = try diary("list", "--month", "2026-03").split(separator: "\n").map(String.init)
        // The columns line up as a terminal draws them: 🦆, 😌, 오 and 리 take two columns, ★ one, the accent none.
        #expect(lines[0] == "DAY         MOOD  TITLE   TEXT       ID")
        #expect(lines[2].unicodeScalars.starts(with: "2026-03-03  😌    Cafe\u{301}    Latte      ".unicodeScalars), "\(lines[2])")
        #expect(lines[3].hasPrefix("2026-03-02  🦆    ★ 오리  Duck day   "))
        #expect(lines[4].hasPrefix("2026-03-01  😊    Duck    Happy day  "))
    }
}

/// Passwords stay off the command line: asked at a terminal without echo, or read from standard input.
@Suite("diary passwords")
struct DiaryCLIPasswordTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-cli-\(UUID().uuidString)")

    func launch(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String, errors: String) {
        try ExampleProgramTests.launch("diary", arguments, environment: ["DIARY_DATA_DIR": directory.path], input: input)
    }

    @Test func aScriptPipesThePasswordAndAMissingOneIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let none = try launch(["signup", "--email", "pipe@example.com", "--nickname", "pipe"])
        #expect(none.status == 2)
        #expect(none.errors.contains("no password: pipe it in with --password-stdin, or run in a terminal to be asked for it"))
        #expect(!FileManager.default.fileExists(atPath: directory.path), "a refused signup created a store")

        let signUp = try launch(["signup", "--email", "pipe@example.com", "--nickname", "pipe", "--password-stdin"], input: "password123\n")
        #expect(signUp.status == 0, "\(signUp.errors)")
        _ = try launch(["signout"])
        let wrong = try launch(["signin", "--email", "pipe@example.com", "--password-stdin"], input: "password124\n")
        #expect(wrong.status == 1)
        let right = try launch(["signin", "--email", "pipe@example.com", "--password-stdin"], input: "password123\r\n")
        #expect(right.output.contains("Signed in as pipe."), "\(right.errors)")
        let empty = try launch(["signin", "--email", "pipe@example.com", "--password-stdin"], input: "")
        #expect(empty.status == 2)
        #expect(empty.errors.contains("--password-stdin read no password"))
        let both = try launch(["signin", "--email", "pipe@example.com", "--password-stdin", "--password", "x"])
        #expect(both.status == 2)
        #expect(try launch(["signin", "--help"]).output.contains("Discouraged"))
    }

    /// A terminal made by `script` (util-linux): the prompt appears, what is typed after it is not echoed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script") && isLinux))
    func aTerminalIsAskedWithoutEcho() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try launch(["signup", "--email", "tty@example.com", "--nickname", "tty", "--password-stdin"], input: "secretpass1\n")
        _ = try launch(["signout"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let diary = try ExampleProgramTests.executable("diary").path
        process.arguments = ["-qec", "'\(diary)' signin --email tty@example.com", "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["DIARY_DATA_DIR": directory.path]) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var seen = Data()
        let deadline = Date().addingTimeInterval(30)
        while !String(decoding: seen, as: UTF8.self).contains("Password: "), Date() < deadline, process.isRunning {
            seen += output.fileHandleForReading.availableData
        }
        #expect(String(decoding: seen, as: UTF8.self).contains("Password: "))
        input.fileHandleForWriting.write(Data("secretpass1\n".utf8))
        seen += output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let transcript = String(decoding: seen, as: UTF8.self)
        #expect(transcript.contains("Signed in as tty."), "\(transcript)")
        #expect(!transcript.contains("secretpass1"), "the password was echoed")
    }
}

#if os(Linux)
    let isLinux = true
#else
    let isLinux = false
#endif
