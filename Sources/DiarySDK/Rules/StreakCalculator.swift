import Foundation

/// Counts writing streaks from the days that have content.
@_spi(Engine)
public enum StreakCalculator {
    /// The current and longest streak.
    ///
    /// The current streak counts back from today when today has content; when today is still empty it counts back
    /// from yesterday, so a streak stays alive until the day is over.
    /// - Parameters:
    ///   - days: The days with content (any order, duplicates allowed).
    ///   - today: Today in the user's time zone.
    /// - Returns: The streak.
    /// - Complexity: O(*n* log *n*) in the number of days.
    public static func streak(days: some Sequence<LocalDate>, today: LocalDate) -> Streak {
        let ordinals = Set(days.map(\.daysSince1970))
        guard !ordinals.isEmpty else { return Streak(current: 0, longest: 0, includesToday: false, lastDay: nil) }
        let sorted = ordinals.sorted()
        var longest = 1
        var run = 1
        for index in sorted.indices.dropFirst() {
            run = sorted[index] == sorted[index - 1] + 1 ? run + 1 : 1
            longest = max(longest, run)
        }
        let todayOrdinal = today.daysSince1970
        let includesToday = ordinals.contains(todayOrdinal)
        var cursor = includesToday ? todayOrdinal : todayOrdinal - 1
        var current = 0
        while ordinals.contains(cursor) {
            current += 1
            cursor -= 1
        }
        let last = sorted.last.map { LocalDate(civil: CivilDate(daysSince1970: Int64($0))) }
        return Streak(current: current, longest: longest, includesToday: includesToday, lastDay: last)
    }
}
