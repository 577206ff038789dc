import Foundation

/// One diary entry.
///
/// An entry belongs to a calendar ``day`` (a ``LocalDate``), may sit in a shared ``DiaryBook``, and is visible
/// according to its ``visibility``. An entry deleted from a book leaves a trace: ``deletedAt`` is set and its
/// content is cleared, and members whose settings show traces still see that it was there.
public struct Diary: Identifiable, Hashable, Sendable, Codable {
    /// A diary entry's identifier.
    public typealias ID = EntityID<Diary>

    /// Who can see an entry.
    public enum Visibility: String, Hashable, Sendable, Codable, CaseIterable {
        /// The author only.
        case `private`
        /// Members of the entry's book (requires ``Diary/bookID``).
        case members
        /// Every signed-in user who is not blocked by or blocking the author.
        case shared
    }

    /// The identifier.
    public var id: ID
    /// The author.
    public var authorID: User.ID
    /// The book the entry is in, if any.
    public var bookID: DiaryBook.ID?
    /// The calendar day it belongs to.
    public var day: LocalDate
    /// The title (may be empty when the body is not).
    public var title: String
    /// The text.
    public var body: String
    /// The mood of the day.
    public var mood: Mood?
    /// Tags, without `#`.
    public var tags: [String]
    /// Attached images.
    public var images: [ImageReference]
    /// Who can see it.
    public var visibility: Visibility
    /// Hidden by its author: left out of lists and calendars unless asked for.
    public var isHidden: Bool
    /// Marked as a favourite (scrapped) by its author.
    public var isFavourite: Bool
    /// When it was written.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// When it was deleted from its book; `nil` for a live entry.
    public var deletedAt: Date?

    /// Creates an entry value.
    public init(
        id: ID, authorID: User.ID, bookID: DiaryBook.ID? = nil, day: LocalDate, title: String, body: String,
        mood: Mood? = nil, tags: [String] = [], images: [ImageReference] = [], visibility: Visibility = .private,
        isHidden: Bool = false, isFavourite: Bool = false, createdAt: Date, updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.authorID = authorID
        self.bookID = bookID
        self.day = day
        self.title = title
        self.body = body
        self.mood = mood
        self.tags = tags
        self.images = images
        self.visibility = visibility
        self.isHidden = isHidden
        self.isFavourite = isFavourite
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    /// Whether this is the trace of an entry deleted from a book.
    public var isDeletedTrace: Bool { deletedAt != nil }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case authorID = "authorID"
        case bookID = "bookID"
        case day = "day"
        case title = "title"
        case body = "body"
        case mood = "mood"
        case tags = "tags"
        case images = "images"
        case visibility = "visibility"
        case isHidden = "isHidden"
        case isFavourite = "isFavourite"
        case createdAt = "createdAt"
        case updatedAt = "updatedAt"
        case deletedAt = "deletedAt"
    }
}

/// What a user writes to create an entry.
public struct DiaryDraft: Hashable, Sendable, Codable {
    /// The id to create it with, chosen by the client (a UUID it generated, so that what is written offline keeps
    /// its id when it reaches the server), or `nil` for a new one. An id that is or was in use is refused with
    /// ``DiaryError/Code/conflict`` (``DiaryError/Reason/alreadyUsed``).
    public var id: Diary.ID?
    /// The day; `nil` means today in the author's time zone.
    public var day: LocalDate?
    /// The title.
    public var title: String
    /// The text; it must not be blank.
    public var body: String
    /// The mood.
    public var mood: Mood?
    /// Tags.
    public var tags: [String]
    /// Images uploaded by the author (at most ``Validation/maximumImages``).
    public var images: [ImageReference]
    /// Who can see it; entries written into a book must be ``Diary/Visibility/members``.
    public var visibility: Diary.Visibility
    /// The book to write into.
    public var bookID: DiaryBook.ID?

    /// Creates a draft.
    public init(
        id: Diary.ID? = nil, day: LocalDate? = nil, title: String = "", body: String, mood: Mood? = nil, tags: [String] = [],
        images: [ImageReference] = [], visibility: Diary.Visibility? = nil, bookID: DiaryBook.ID? = nil
    ) {
        self.day = day
        self.title = title
        self.body = body
        self.mood = mood
        self.tags = tags
        self.images = images
        self.id = id
        self.visibility = visibility ?? (bookID == nil ? .private : .members)
        self.bookID = bookID
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case id = "id"
        case day = "day"
        case title = "title"
        case body = "body"
        case mood = "mood"
        case tags = "tags"
        case images = "images"
        case visibility = "visibility"
        case bookID = "bookID"
    }
}

/// Changes to an entry: `nil` fields are left as they are.
public struct DiaryEdit: Hashable, Sendable, Codable {
    /// A new day.
    public var day: LocalDate?
    /// A new title.
    public var title: String?
    /// A new body.
    public var body: String?
    /// A new mood; `.some(nil)` clears it.
    public var mood: Mood??
    /// New tags.
    public var tags: [String]?
    /// New images.
    public var images: [ImageReference]?
    /// A new visibility.
    public var visibility: Diary.Visibility?

    /// Creates an edit.
    public init(
        day: LocalDate? = nil, title: String? = nil, body: String? = nil, mood: Mood?? = nil, tags: [String]? = nil,
        images: [ImageReference]? = nil, visibility: Diary.Visibility? = nil
    ) {
        self.day = day
        self.title = title
        self.body = body
        self.mood = mood
        self.tags = tags
        self.images = images
        self.visibility = visibility
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case day = "day"
        case title = "title"
        case body = "body"
        case mood = "mood"
        case tags = "tags"
        case images = "images"
        case visibility = "visibility"
    }
}

/// Which entries to list.
public struct DiaryQuery: Hashable, Sendable, Codable {
    /// Whose entries; `nil` means the signed-in user's.
    public var authorID: User.ID?
    /// Entries in this book (every member's); overrides ``authorID``.
    public var bookID: DiaryBook.ID?
    /// Only this month.
    public var month: YearMonth?
    /// Only this day.
    public var day: LocalDate?
    /// Only favourites.
    public var favouritesOnly: Bool
    /// Include entries the author hid (only the author ever sees them).
    public var includeHidden: Bool
    /// Only entries with this tag.
    public var tag: String?

    /// Creates a query; the default lists the signed-in user's visible entries, newest day first.
    public init(
        authorID: User.ID? = nil, bookID: DiaryBook.ID? = nil, month: YearMonth? = nil, day: LocalDate? = nil,
        favouritesOnly: Bool = false, includeHidden: Bool = false, tag: String? = nil
    ) {
        self.authorID = authorID
        self.bookID = bookID
        self.month = month
        self.day = day
        self.favouritesOnly = favouritesOnly
        self.includeHidden = includeHidden
        self.tag = tag
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case authorID = "authorID"
        case bookID = "bookID"
        case month = "month"
        case day = "day"
        case favouritesOnly = "favouritesOnly"
        case includeHidden = "includeHidden"
        case tag = "tag"
    }
}

/// A month's calendar: which days have entries, with the mood of each day.
public struct MonthCalendar: Hashable, Sendable, Codable {
    /// One day that has content.
    public struct Day: Hashable, Sendable, Codable {
        /// The day.
        public var date: LocalDate
        /// The mood of the day's latest entry that has one.
        public var mood: Mood?
        /// How many diary entries the day has.
        public var entryCount: Int
        /// How many posts (written or imported) the day has.
        public var postCount: Int

        /// Creates a day.
        public init(date: LocalDate, mood: Mood?, entryCount: Int, postCount: Int) {
            self.date = date
            self.mood = mood
            self.entryCount = entryCount
            self.postCount = postCount
        }

        /// The JSON member names, spelled out so that renaming a property never changes the wire format.
        private enum CodingKeys: String, CodingKey {
            case date = "date"
            case mood = "mood"
            case entryCount = "entryCount"
            case postCount = "postCount"
        }
    }

    /// The month.
    public var month: YearMonth
    /// The days with at least one entry or post, in order.
    public var days: [Day]

    /// Creates a calendar.
    public init(month: YearMonth, days: [Day]) {
        self.month = month
        self.days = days
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case month = "month"
        case days = "days"
    }
}

/// Writing streaks, counted in whole days in the user's time zone.
public struct Streak: Hashable, Sendable, Codable {
    /// Consecutive days with content up to today; still alive when today is empty but yesterday is not.
    public var current: Int
    /// The longest run ever.
    public var longest: Int
    /// Whether today already has content.
    public var includesToday: Bool
    /// The last day with content.
    public var lastDay: LocalDate?

    /// Creates a streak value.
    public init(current: Int, longest: Int, includesToday: Bool, lastDay: LocalDate?) {
        self.current = current
        self.longest = longest
        self.includesToday = includesToday
        self.lastDay = lastDay
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case current = "current"
        case longest = "longest"
        case includesToday = "includesToday"
        case lastDay = "lastDay"
    }
}
