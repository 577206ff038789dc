import ArgumentParser
@_spi(Engine) import DiarySDK
import DiarySDKFileStore
import Foundation

/// `diary demo`: a scripted tour of the SDK on a throwaway file store.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A guided tour: two users, a month of entries, a shared book, a community, a blog import, a calendar.")

    @Option(help: "Where to put the throwaway store (a new temporary folder by default; it is deleted afterwards).")
    var dataDir: String?

    @Flag(help: "Keep the store afterwards to explore it with the other commands (--data-dir).")
    var keep = false

    func run() async throws {
        let directory = dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("diary-demo-\(UUID().uuidString.prefix(8))")
        do {
            try await DemoTour(directory: directory).run()
        } catch let error as DiaryError {
            Output(json: false).fail(error)
            throw ExitCode(1)
        }
        if keep {
            print("\nThe store is kept at \(directory.path). Try: diary calendar --month 2026-03 --data-dir \(directory.path)")
            print("(sign in as minji@example.com / \(DemoTour.password))")
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

/// The tour itself: each step prints what it does.
struct DemoTour {
    static let password = "demo-password"
    let directory: URL
    /// The demo's clock: 20 March 2026, 21:00 in Seoul, moved along as the story goes.
    let clock = ManualClock(WireDate.date(from: "2026-03-01T12:00:00Z")!)
    let seoul = TimeZone(identifier: "Asia/Seoul")!

    func run() async throws {
        let backend = try FileStoreBackend(
            configuration: .init(
                directory: directory, clock: clock, defaultTimeZone: seoul,
                engine: .init(passwordHashIterations: 10_000)))
        defer { Task { try? await backend.close() } }
        print("DiarySDK demo — a tour on a throwaway file store at \(directory.path)")
        print("The demo's clock runs through March 2026 in Seoul, so every run tells the same story.\n")

        step(1, "Two people sign up")
        let minji = backend.makeRepositories()
        let joon = backend.makeRepositories()
        let spammer = backend.makeRepositories()
        let minjiUser = try await minji.accounts.signUp(.init(email: "minji@example.com", password: Self.password, nickname: "minji"))
        let joonUser = try await joon.accounts.signUp(.init(email: "joon@example.com", password: Self.password, nickname: "joon"))
        let spamUser = try await spammer.accounts.signUp(.init(email: "deals@example.com", password: Self.password, nickname: "best_deals"))
        done("minji, joon and best_deals have accounts (passwords are stored as PBKDF2 hashes)")
        let blank = try await failure { _ = try await minji.diaries.write(DiaryDraft(body: "   ")) }
        done("a blank entry is refused: \(blank.message) [\(blank.field ?? "")]")

        step(2, "Minji keeps a mood diary through March")
        let story: [(Int, Mood, String, String)] = [
            (2, "😊", "First day of the semester", "New notebook, new habits."), (3, "😌", "Library", "Read about Swift actors."),
            (5, "😢", "Rainy", "Missed the bus."), (6, "😊", "Better", "Coffee with joon."), (9, "😴", "Tired", "Too many classes."),
            (14, "😡", "Deadline", "The build broke twice."), (16, "😊", "Fixed it", "Strict concurrency, finally clean."),
            (17, "😌", "Quiet", "A walk by the river."), (18, "😊", "TIL", "PageSequence walks every page."),
            (19, "😊", "Streak", "Four days in a row."), (20, "🥳", "Spring", "Cherry blossoms soon."),
        ]
        var entries: [Diary] = []
        for (day, mood, title, body) in story {
            clock.set(seoulEvening(day))
            entries.append(try await minji.diaries.write(DiaryDraft(title: title, body: body, mood: mood, tags: ["march"])))
        }
        _ = try await minji.diaries.setFavourite(entries[6].id, true)
        _ = try await minji.diaries.setHidden(entries[3].id, true)
        done("\(entries.count) entries written on their days in Seoul; one favourite, one hidden")

        step(3, "A diary book shared with a friend")
        clock.set(seoulEvening(20).addingTimeInterval(60))
        let book = try await minji.books.createBook(BookDraft(title: "Duck book", coverColor: "#FFD166", stickers: [.init(name: "duck", x: 0.8, y: 0.2)]))
        let code = try await minji.books.inviteCode(for: book.id)
        done("minji created “\(book.title)”; its invite code is \(code.count) characters")
        _ = try await joon.books.join(inviteCode: code)
        let members = try await minji.books.members(of: book.id)
        done("joon joined with the code; members in turn order: \(members.map(\.user.nickname).joined(separator: ", "))")
        let bookEntry = try await minji.diaries.write(DiaryDraft(title: "Our first page", body: "Your turn, joon!", mood: "🦆", bookID: book.id))
        let turn = try await minji.books.book(book.id).currentTurn
        done("minji wrote her turn; now it is \(turn == joonUser.id ? "joon" : "minji")'s turn")
        try await minji.books.nudge(book.id)
        let joonNotes = try await joon.notifications.notifications(page: .first()).items
        done("minji nudged joon; joon's notifications: \(joonNotes.map { sentence($0, bookTitle: $0.bookID == book.id ? book.title : nil) }.joined(separator: "; "))")
        let comment = try await joon.comments.addComment(CommentDraft(target: .diary(bookEntry.id), body: "Writing tonight!", mood: "😊"))
        _ = try await minji.comments.addComment(CommentDraft(target: .diary(bookEntry.id), parentID: comment.id, body: "Can't wait"))
        _ = try await joon.diaries.write(DiaryDraft(title: "Page two", body: "Dinner was great.", bookID: book.id))
        let bookEntries = try await joon.diaries.entries(DiaryQuery(bookID: book.id), page: .first()).items
        done("joon commented, minji replied, joon wrote his page: the book has \(bookEntries.count) entries")

        step(4, "The community: posts, likes, an anonymous question and a block")
        clock.set(seoulEvening(20).addingTimeInterval(120))
        let shared = try await minji.posts.share(entries[8].id, isAnonymous: false)
        clock.advance(by: 60)
        _ = try await joon.posts.publish(PostDraft(title: "Study group?", body: "Anyone up for Swift on Fridays?", tags: ["swift"]))
        clock.advance(by: 60)
        let question = try await joon.posts.publish(PostDraft(title: "A question", body: "How do you keep a streak?", isAnonymous: true))
        clock.advance(by: 60)
        _ = try await spammer.posts.publish(PostDraft(title: "CHEAP FOLLOWERS", body: "Click here!!!", tags: ["deal"]))
        _ = try await joon.posts.like(shared.id)
        _ = try await spammer.posts.like(shared.id)
        _ = try await minji.posts.like(question.id)
        try await joon.social.follow(minjiUser.id)
        print(indented(feedTable(try await minji.posts.feed(page: .first(size: 10)).items)))
        done("the anonymous question shows no author to minji (joon still sees it as his)")
        try await minji.social.block(spamUser.id)
        _ = try await minji.social.report(.user(spamUser.id), reason: .spam, detail: "Sells followers")
        let afterBlock = try await minji.posts.feed(page: .first(size: 10)).items
        let likes = try await minji.posts.post(shared.id).likeCount
        done("minji blocked and reported best_deals: the feed now has \(afterBlock.count) posts and her post shows \(likes) like")
        let search = try await minji.posts.search(PostSearch(tags: ["swift"]), page: .first()).items
        done("searching #swift finds: \(search.map { "“\($0.title)”" }.joined(separator: ", "))")

        try await importBlog(minji, owner: minjiUser)

        step(6, "Minji's March")
        clock.set(seoulEvening(20).addingTimeInterval(600))
        let calendar = try await minji.diaries.calendar(YearMonth(year: 2026, month: 3)!, of: nil)
        let streak = try await minji.diaries.streak(of: nil)
        print(indented(CalendarRenderer.render(calendar, streak: streak)))
        print("\nDone. Every step above ran through DiarySDK's repositories on a real file store.")
        print("Next: `swift run --package-path Examples diary --help`, and docs/GettingStarted.md.")
    }

    /// 21:00 in Seoul on a day of March 2026.
    func seoulEvening(_ day: Int) -> Date {
        WireDate.date(from: String(format: "2026-03-%02dT21:00:00+09:00", day))!
    }

    func step(_ number: Int, _ title: String) {
        print("\n\(number). \(title)")
    }

    func done(_ text: String) {
        print("   ✓ \(text)")
    }

    func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "     " + $0 }.joined(separator: "\n")
    }

    func failure(_ body: () async throws -> Void) async throws -> DiaryError {
        do {
            try await body()
        } catch let error as DiaryError {
            return error
        }
        throw DiaryError(.server, "the demo expected this step to fail")
    }

    func feedTable(_ posts: [Post]) -> String {
        Output.table(
            ["BY", "TITLE", "♥", "💬"],
            posts.map { [$0.author?.nickname ?? "(anonymous)", $0.title, "\($0.likeCount)", "\($0.commentCount)"] }, empty: "No posts.")
    }
}
