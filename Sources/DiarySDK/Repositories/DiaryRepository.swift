import Foundation

/// Diary entries: write, edit, delete, hide, favourite; lists, the month calendar and streaks.
///
/// Private entries are visible to their author only, book entries to the book's members only, shared entries to
/// everyone without a block either way.
public protocol DiaryRepository: Sendable {
    /// Writes an entry.
    /// - Parameter draft: The entry.
    /// - Returns: The stored entry.
    /// - Throws: `.invalidInput` (blank body, too many images, another user's image, members visibility without a
    ///   book); `.notFound` / `.forbidden` for a book the user is not in.
    func write(_ draft: DiaryDraft) async throws -> Diary

    /// Edits one of the signed-in user's entries.
    /// - Throws: `.forbidden` for someone else's entry; `.notFound` for one the user cannot see.
    func edit(_ id: Diary.ID, _ edit: DiaryEdit) async throws -> Diary

    /// Deletes one of the signed-in user's entries. In a book, a trace stays behind.
    /// - Throws: `.forbidden` for someone else's entry.
    func delete(_ id: Diary.ID) async throws

    /// Hides or shows one of the signed-in user's entries.
    func setHidden(_ id: Diary.ID, _ isHidden: Bool) async throws -> Diary

    /// Marks or unmarks one of the signed-in user's entries as a favourite.
    func setFavourite(_ id: Diary.ID, _ isFavourite: Bool) async throws -> Diary

    /// One entry.
    /// - Throws: `.notFound` when it does not exist or the user may not see it.
    func entry(_ id: Diary.ID) async throws -> Diary

    /// Entries matching a query, newest day first.
    func entries(_ query: DiaryQuery, page: PageRequest) async throws -> Page<Diary>

    /// The days of a month with content (entries and posts), with the mood of each day.
    /// - Parameters:
    ///   - month: The month.
    ///   - userID: Whose calendar; `nil` for the signed-in user's. Others' calendars count only what the viewer
    ///     may see.
    func calendar(_ month: YearMonth, of userID: User.ID?) async throws -> MonthCalendar

    /// The current and longest writing streak, in the user's time zone.
    /// - Parameter userID: Whose streak; `nil` for the signed-in user's.
    func streak(of userID: User.ID?) async throws -> Streak
}

/// Diary books shared with friends: membership, invite codes, turns and nudges.
public protocol BookRepository: Sendable {
    /// Creates a book owned by the signed-in user, who becomes its first member and has the first turn.
    func createBook(_ draft: BookDraft) async throws -> DiaryBook
    /// Edits a book's title or cover (members may).
    func updateBook(_ id: DiaryBook.ID, _ edit: BookEdit) async throws -> DiaryBook
    /// Deletes a book and its entries (owner only).
    func deleteBook(_ id: DiaryBook.ID) async throws
    /// One book the user is a member of.
    /// - Throws: `.notFound` for a book the user is not in.
    func book(_ id: DiaryBook.ID) async throws -> DiaryBook
    /// The user's books, most recently updated first.
    func books(page: PageRequest) async throws -> Page<DiaryBook>
    /// The book's invite code, created on first use.
    func inviteCode(for id: DiaryBook.ID) async throws -> String
    /// Replaces the invite code; the old one stops working (owner only).
    func rotateInviteCode(for id: DiaryBook.ID) async throws -> String
    /// Joins a book by its invite code.
    /// - Throws: `.notFound` for an unknown code; `.conflict` when already a member.
    func join(inviteCode: String) async throws -> DiaryBook
    /// Leaves a book; an owner hands the book to the longest-standing member, or deletes it when alone.
    func leave(_ id: DiaryBook.ID) async throws
    /// Removes a member (owner only).
    func removeMember(_ userID: User.ID, from id: DiaryBook.ID) async throws
    /// The members, in joining order.
    func members(of id: DiaryBook.ID) async throws -> [BookMember]
    /// Notifies the member whose turn it is to write (any other member may nudge).
    /// - Throws: `.conflict` when it is the caller's own turn.
    func nudge(_ id: DiaryBook.ID) async throws
}
