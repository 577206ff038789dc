import ArgumentParser
import DiarySDK
import Foundation

struct Write: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a diary entry.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "A title.") var title = ""
    @Option(help: "The mood, as an emoticon.") var mood: String?
    @Option(name: .customLong("tag"), help: "A tag (repeatable).") var tags: [String] = []
    @Option(help: "The day (yyyy-MM-dd); today by default.") var day: String?
    @Option(help: "Who can see it: private, shared (or members, with --book).") var visibility: String?
    @Option(help: "Write into a shared book (its id).") var book: String?
    @Argument(help: "The text.") var body: [String]

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let draft = DiaryDraft(
                day: try day.map(parseDay), title: title, body: body.joined(separator: " "), mood: mood.map(Mood.init(rawValue:)),
                tags: tags, visibility: try visibility.map(parseVisibility), bookID: try book.map { try parseID($0, as: DiaryBook.self, "book") })
            let entry = try await session.sdk.diaries.write(draft)
            session.output.show(entry) { print("Saved entry \(entry.id) on \(entry.day).") }
        }
    }
}

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Edit one of your entries.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The entry's id.") var id: String
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new text.") var body: String?
    @Option(help: "A new mood.") var mood: String?

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let edit = DiaryEdit(title: title, body: body, mood: mood.map { .some(Mood(rawValue: $0)) })
            let entry = try await session.sdk.diaries.edit(try parseID(id, as: Diary.self, "entry"), edit)
            session.output.show(entry) { print("Updated entry \(entry.id).") }
        }
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete one of your entries.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The entry's id.") var id: String

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.diaries.delete(try parseID(id, as: Diary.self, "entry"))
            session.output.say("Deleted.")
        }
    }
}

struct Hide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Hide (or show again) one of your entries.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The entry's id.") var id: String
    @Flag(help: "Show it again.") var unhide = false

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let entry = try await session.sdk.diaries.setHidden(try parseID(id, as: Diary.self, "entry"), !unhide)
            session.output.show(entry) { print(entry.isHidden ? "Hidden." : "Visible again.") }
        }
    }
}

struct Favourite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark (or unmark) one of your entries as a favourite.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The entry's id.") var id: String
    @Flag(help: "Remove the mark.") var remove = false

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let entry = try await session.sdk.diaries.setFavourite(try parseID(id, as: Diary.self, "entry"), !remove)
            session.output.show(entry) { print(entry.isFavourite ? "★ Favourite." : "Unmarked.") }
        }
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List entries of a day or a month.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "One day (yyyy-MM-dd).") var day: String?
    @Option(help: "One month (yyyy-MM); the current month by default.") var month: String?
    @Option(help: "Someone else's shared entries (nickname or id).") var user: String?
    @Flag(help: "Favourites only.") var favourites = false
    @Flag(help: "Include hidden entries.") var hidden = false

    func run() async throws {
        try await withSession(options) { session in
            let me = try await signedIn(session)
            let day = try self.day.map(parseDay)
            let month = try self.month.map(parseMonth) ?? (day == nil ? currentMonth(me) : nil)
            let author = try await session.optionalUser(user)
            let query = DiaryQuery(authorID: author, month: month, day: day, favouritesOnly: favourites, includeHidden: hidden)
            let sdk = session.sdk
            let entries = try await allItems { try await sdk.diaries.entries(query, page: $0) }
            session.output.show(entries) {
                print(entryTable(entries))
                print("\(entries.count) entr\(entries.count == 1 ? "y" : "ies")")
            }
        }
    }
}

struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar", abstract: "Draw a month with the mood of each day, and your streaks.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "The month (yyyy-MM); the current month by default.") var month: String?
    @Option(help: "Someone else's calendar (nickname or id).") var user: String?

    func run() async throws {
        try await withSession(options) { session in
            let me = try await signedIn(session)
            let month = try self.month.map(parseMonth) ?? currentMonth(me)
            let owner = try await session.optionalUser(user)
            let calendar = try await session.sdk.diaries.calendar(month, of: owner)
            let streak = try await session.sdk.diaries.streak(of: owner)
            struct Result: Encodable {
                let calendar: MonthCalendar
                let streak: Streak
            }
            session.output.show(Result(calendar: calendar, streak: streak)) {
                print(CalendarRenderer.render(calendar, streak: streak))
            }
        }
    }
}

// MARK: - Helpers

func parseDay(_ text: String) throws -> LocalDate {
    guard let day = LocalDate(text) else { throw ValidationError("'\(text)' is not a day (yyyy-MM-dd)") }
    return day
}

func parseMonth(_ text: String) throws -> YearMonth {
    guard let month = YearMonth(text) else { throw ValidationError("'\(text)' is not a month (yyyy-MM)") }
    return month
}

func parseVisibility(_ text: String) throws -> Diary.Visibility {
    guard let visibility = Diary.Visibility(rawValue: text.lowercased()) else {
        throw ValidationError("visibility is private, members or shared, not '\(text)'")
    }
    return visibility
}

func currentMonth(_ user: User) -> YearMonth {
    let zone = user.settings?.timeZoneIdentifier.flatMap(TimeZone.init(identifier:)) ?? .current
    return LocalDate(Date(), in: zone).yearMonth
}

/// Every item of a listing, page by page.
func allItems<Item: Sendable>(_ fetch: @escaping @Sendable (PageRequest) async throws -> Page<Item>) async throws -> [Item] {
    var items: [Item] = []
    for try await page in PageSequence(first: .first(size: 100), fetch: fetch) { items += page.items }
    return items
}

func entryTable(_ entries: [Diary]) -> String {
    Output.table(
        ["DAY", "MOOD", "TITLE", "TEXT", "ID"],
        entries.map { entry in
            [
                entry.day.description, entry.mood?.rawValue ?? "·",
                (entry.isFavourite ? "★ " : "") + (entry.isDeletedTrace ? "(deleted)" : entry.title),
                Output.preview(entry.body, 32) + (entry.isHidden ? " (hidden)" : ""), entry.id.description,
            ]
        })
}
