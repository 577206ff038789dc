import ArgumentParser
import DiarySDK
import Foundation

struct Write: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a diary entry.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "A title.") var title = ""
    @Option(help: ArgumentHelp("The mood: \(Parse.moodList).", valueName: "mood"), transform: Parse.mood) var mood: Mood?
    @Option(name: .customLong("tag"), help: "A tag (repeatable).") var tags: [String] = []
    @Option(help: ArgumentHelp("The day (yyyy-MM-dd); today by default.", valueName: "day"), transform: Parse.day)
    var day: LocalDate?
    @Option(help: "Who can see it: private, shared (or members, with --book).", transform: Parse.visibility)
    var visibility: Diary.Visibility?
    @Option(help: ArgumentHelp("Write into a shared book (its id or id prefix).", valueName: "id"), transform: Parse.id)
    var book: IDPrefix?
    @Argument(help: "The text.") var body: [String]

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let bookID = try await book.asyncMap(session.bookID)
            let draft = DiaryDraft(
                day: day, title: title, body: body.joined(separator: " "), mood: mood, tags: tags, visibility: visibility,
                bookID: bookID)
            let entry = try await session.sdk.diaries.write(draft)
            session.output.show(entry) { print("Saved entry \(shortID(entry.id)) on \(entry.day).") }
        }
    }
}

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Edit one of your entries.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The entry's id or id prefix.", valueName: "id"), transform: Parse.id) var id: IDPrefix
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new text.") var body: String?
    @Option(help: ArgumentHelp("A new mood: \(Parse.moodList).", valueName: "mood"), transform: Parse.mood) var mood: Mood?

    func validate() throws {
        guard title != nil || body != nil || mood != nil else {
            throw ValidationError("nothing to change: give --title, --body or --mood")
        }
    }

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let id = try await session.entryID(self.id)
            let before = try await session.sdk.diaries.entry(id)
            guard title.map({ $0 != before.title }) ?? false || body.map({ $0 != before.body }) ?? false
                || mood.map({ $0 != before.mood }) ?? false
            else {
                session.output.show(before) { print("Nothing changed: entry \(shortID(id)) already says that.") }
                return
            }
            let entry = try await session.sdk.diaries.edit(id, DiaryEdit(title: title, body: body, mood: mood.map { .some($0) }))
            session.output.show(entry) { print("Updated entry \(shortID(entry.id)).") }
        }
    }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete one of your entries.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The entry's id or id prefix.", valueName: "id"), transform: Parse.id) var id: IDPrefix

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let id = try await session.entryID(self.id)
            try await session.sdk.diaries.delete(id)
            session.output.done("Deleted entry \(shortID(id)).", ["id": id.description])
        }
    }
}

/// Shared by the commands that turn a mark on (`hide`, `favourite`) and their `un…` counterparts, the one way this
/// CLI undoes something (as `like`/`unlike`, `follow`/`unfollow` and `block`/`unblock` do).
struct EntryMark {
    let set: @Sendable (DiaryRepositories, Diary.ID, Bool) async throws -> Diary
    let describe: @Sendable (Diary) -> String

    static let hidden = EntryMark(
        set: { try await $0.diaries.setHidden($1, $2) }, describe: { $0.isHidden ? "Hidden." : "Visible again." })
    static let favourite = EntryMark(
        set: { try await $0.diaries.setFavourite($1, $2) }, describe: { $0.isFavourite ? "★ Favourite." : "Unmarked." })

    func run(_ options: GlobalOptions, _ prefix: IDPrefix, on: Bool) async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let entry = try await set(session.sdk, try await session.entryID(prefix), on)
            session.output.show(entry) { print(describe(entry)) }
        }
    }
}

/// Warns once about an old flag that still works.
func deprecated(_ old: String, use new: String, _ options: GlobalOptions) {
    Output(json: options.json).note("\(old) is deprecated and will be removed: use `\(new)`")
}

struct Hide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Hide one of your entries (`diary unhide` shows it again).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The entry's id or id prefix.", valueName: "id"), transform: Parse.id) var id: IDPrefix
    @Flag(help: .hidden) var unhide = false

    func run() async throws {
        if unhide { deprecated("`hide --unhide`", use: "diary unhide ID", options) }
        try await EntryMark.hidden.run(options, id, on: !unhide)
    }
}

struct Unhide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a hidden entry again.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The entry's id or id prefix.", valueName: "id"), transform: Parse.id) var id: IDPrefix

    func run() async throws {
        try await EntryMark.hidden.run(options, id, on: false)
    }
}

struct Favourite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark one of your entries as a favourite (`diary unfavourite` removes the mark).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The entry's id or id prefix.", valueName: "id"), transform: Parse.id) var id: IDPrefix
    @Flag(help: .hidden) var remove = false

    func run() async throws {
        if remove { deprecated("`favourite --remove`", use: "diary unfavourite ID", options) }
        try await EntryMark.favourite.run(options, id, on: !remove)
    }
}

struct Unfavourite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove an entry's favourite mark.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The entry's id or id prefix.", valueName: "id"), transform: Parse.id) var id: IDPrefix

    func run() async throws {
        try await EntryMark.favourite.run(options, id, on: false)
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List entries of a day or a month.")
    @OptionGroup var options: GlobalOptions
    @Option(help: ArgumentHelp("One day (yyyy-MM-dd).", valueName: "day"), transform: Parse.day) var day: LocalDate?
    @Option(help: ArgumentHelp("One month (yyyy-MM); the current month by default.", valueName: "month"), transform: Parse.month)
    var month: YearMonth?
    @Option(help: ArgumentHelp("Whose shared entries: nickname, id, id prefix or 'me'.", valueName: "user"), transform: Parse.user)
    var user: UserReference?
    @Flag(help: "Favourites only.") var favourites = false
    @Flag(help: "Include hidden entries.") var hidden = false

    func run() async throws {
        try await withSession(options) { session in
            let me = try await signedIn(session)
            let month = self.month ?? (day == nil ? currentMonth(me) : nil)
            let author = try await session.optionalUser(user)
            let query = DiaryQuery(authorID: author, month: month, day: day, favouritesOnly: favourites, includeHidden: hidden)
            let sdk = session.sdk
            let entries = try await allItems { try await sdk.diaries.entries(query, page: $0) }
            session.output.show(entries) {
                print(entryTable(entries))
                if !entries.isEmpty { print("\(entries.count) entr\(entries.count == 1 ? "y" : "ies")") }
            }
        }
    }
}

struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar", abstract: "Draw a month with the mood of each day, and your streaks.")
    @OptionGroup var options: GlobalOptions
    @Option(help: ArgumentHelp("The month (yyyy-MM); the current month by default.", valueName: "month"), transform: Parse.month)
    var month: YearMonth?
    @Option(help: ArgumentHelp("Whose calendar: nickname, id, id prefix or 'me'.", valueName: "user"), transform: Parse.user)
    var user: UserReference?

    func run() async throws {
        try await withSession(options) { session in
            let me = try await signedIn(session)
            let month = self.month ?? currentMonth(me)
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
                Output.preview(entry.body, 32) + (entry.isHidden ? " (hidden)" : ""), shortID(entry.id),
            ]
        }, empty: "No entries.")
}

extension Optional {
    /// Maps the wrapped value with an async function.
    func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result) async throws -> Result? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
