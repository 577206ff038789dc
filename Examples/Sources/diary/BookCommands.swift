import ArgumentParser
@_spi(Engine) import DiarySDK

struct BookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "book", abstract: "Diary books shared with friends.",
        subcommands: [Create.self, Books.self, Invite.self, Join.self, Members.self, Turn.self, Nudge.self, Entries.self, Leave.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a book.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Cover colour, #RRGGBB.") var color = "#FFD166"
        @Argument(help: "The title.") var title: [String]

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let book = try await session.sdk.books.createBook(.init(title: title.joined(separator: " "), coverColor: color))
                session.output.show(book) { print("Created “\(book.title)” (\(shortID(book.id))). It is your turn to write.") }
            }
        }
    }

    struct Books: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Your books, most recently updated first.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let sdk = session.sdk
                let books = try await allItems { try await sdk.books.books(page: $0) }
                session.output.show(books) {
                    print(Output.table(
                        ["TITLE", "COVER", "UPDATED", "ID"],
                        books.map { [$0.title, $0.coverColor, WireDate.string(from: $0.updatedAt).prefix(16).description, shortID($0.id)] },
                        empty: "No books yet: `diary book create TITLE` starts one."))
                }
            }
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show (or rotate) a book's invite code.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The book's id or id prefix.", valueName: "id"), transform: Parse.id) var book: IDPrefix
        @Flag(help: "Replace the code; the old one stops working (owner only).") var rotate = false

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let id = try await session.bookID(book)
                let code = rotate ? try await session.sdk.books.rotateInviteCode(for: id) : try await session.sdk.books.inviteCode(for: id)
                session.output.show(["inviteCode": code]) { print("Invite code: \(code)") }
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Join a book with its invite code.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The invite code.") var code: String

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let book = try await session.sdk.books.join(inviteCode: code)
                session.output.show(book) { print("You joined “\(book.title)”.") }
            }
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A book's members in turn order.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The book's id or id prefix.", valueName: "id"), transform: Parse.id) var book: IDPrefix

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let id = try await session.bookID(book)
                let members = try await session.sdk.books.members(of: id)
                let turn = try await session.sdk.books.book(id).currentTurn
                session.output.show(members) {
                    print(Output.table(
                        ["MEMBER", "ROLE", "TURN"], members.map { [$0.user.nickname, $0.role.rawValue, $0.user.id == turn ? "✎ writing" : ""] },
                        empty: "No members."))
                }
            }
        }
    }

    struct Turn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Whose turn it is to write.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The book's id or id prefix.", valueName: "id"), transform: Parse.id) var book: IDPrefix

        func run() async throws {
            try await withSession(options) { session in
                let me = try await signedIn(session)
                let id = try await session.bookID(book)
                let turn = try await session.sdk.books.book(id).currentTurn
                let member = try await session.sdk.books.members(of: id).first { $0.user.id == turn }
                session.output.show(["turn": member?.user.nickname ?? ""]) {
                    print(turn == me.id ? "It is your turn to write." : "It is \(member?.user.nickname ?? "nobody")'s turn.")
                }
            }
        }
    }

    struct Nudge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Nudge the member whose turn it is.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The book's id or id prefix.", valueName: "id"), transform: Parse.id) var book: IDPrefix

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                try await session.sdk.books.nudge(try await session.bookID(book))
                session.output.done("Nudged.")
            }
        }
    }

    struct Entries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A book's entries, grouped by month.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The book's id or id prefix.", valueName: "id"), transform: Parse.id) var book: IDPrefix
        @Option(help: ArgumentHelp("Only this month (yyyy-MM).", valueName: "month"), transform: Parse.month) var month: YearMonth?

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let query = DiaryQuery(bookID: try await session.bookID(book), month: month)
                let sdk = session.sdk
                let entries = try await allItems { try await sdk.diaries.entries(query, page: $0) }
                session.output.show(entries) {
                    if entries.isEmpty { print("No entries.") }
                    let months = Dictionary(grouping: entries, by: \.day.yearMonth).sorted { $0.key > $1.key }
                    for (month, entries) in months {
                        print("\n\(CalendarRenderer.monthName(month.month)) \(month.year)")
                        print(entryTable(entries))
                    }
                }
            }
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave a book.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The book's id or id prefix.", valueName: "id"), transform: Parse.id) var book: IDPrefix

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                try await session.sdk.books.leave(try await session.bookID(book))
                session.output.done("You left the book.")
            }
        }
    }
}
