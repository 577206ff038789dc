import DiarySDK
import Foundation

/// The view model of a mood-diary screen (Mongsil): a month calendar with the mood of each day, the writing
/// streak, and a compose box that saves today's entry.
///
/// It depends only on the repository protocols, so the app hands it a file-store or HTTP backend's repositories
/// and its tests hand it an `InMemoryBackend`'s (see MoodCalendarViewModelTests).
@MainActor
public final class MoodCalendarViewModel {
    /// What the screen shows.
    public struct State: Equatable, Sendable {
        /// The month on screen.
        public var month: YearMonth
        /// Days with entries, with their mood.
        public var days: [MonthCalendar.Day] = []
        /// The streak line, such as "3 days in a row".
        public var streakText = ""
        /// A message for the user when something failed.
        public var errorMessage: String?
        /// Whether a save is running (the save button is disabled).
        public var isSaving = false
        /// The error under the text field.
        public var fieldError: String?
    }

    /// The current state.
    public private(set) var state: State
    private let diaries: any DiaryRepository
    private var saveInFlight: Task<Diary?, Never>?

    /// Creates the view model for a month.
    /// - Parameters:
    ///   - diaries: Where entries are read and written.
    ///   - month: The month to show first.
    public init(diaries: any DiaryRepository, month: YearMonth) {
        self.diaries = diaries
        self.state = State(month: month)
    }

    /// Loads the month and the streak.
    public func load() async {
        do {
            let calendar = try await diaries.calendar(state.month, of: nil)
            let streak = try await diaries.streak(of: nil)
            state.days = calendar.days
            state.streakText = Self.describe(streak)
            state.errorMessage = nil
        } catch {
            state.errorMessage = Self.message(for: error)
        }
    }

    /// Saves an entry for today. A second tap while a save runs joins it instead of saving twice.
    /// - Parameters:
    ///   - text: What the user wrote.
    ///   - mood: The mood picked.
    /// - Returns: The saved entry, or `nil` when it failed (the state says why).
    @discardableResult
    public func save(text: String, mood: Mood?) async -> Diary? {
        if let saveInFlight { return await saveInFlight.value }
        state.isSaving = true
        state.fieldError = nil
        let diaries = self.diaries
        let task = Task { () -> Diary? in
            do {
                return try await diaries.write(DiaryDraft(body: text, mood: mood))
            } catch let error as DiaryError where error.code == .invalidInput {
                self.state.fieldError = error.reason == .blank ? "Write something first." : error.message
                return nil
            } catch {
                self.state.errorMessage = Self.message(for: error)
                return nil
            }
        }
        saveInFlight = task
        let saved = await task.value
        saveInFlight = nil
        state.isSaving = false
        if saved != nil { await load() }
        return saved
    }

    static func describe(_ streak: Streak) -> String {
        switch streak.current {
        case 0: "Start a streak today"
        case 1: "1 day in a row"
        default: "\(streak.current) days in a row" + (streak.includesToday ? "" : " — write today to keep it")
        }
    }

    static func message(for error: any Error) -> String {
        guard let error = error as? DiaryError else { return "Something went wrong." }
        switch error.code {
        case .unavailable, .rateLimited: return "You seem to be offline. Try again in a moment."
        case .unauthenticated: return "Please sign in again."
        default: return error.message
        }
    }
}
