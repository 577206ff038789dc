import Foundation

/// A month's entries, as list screens group them.
public struct MonthGroup: Hashable, Sendable, Codable, Identifiable {
    /// The month.
    public var month: YearMonth
    /// Its entries, newest day first.
    public var entries: [Diary]

    /// The group's id is its month.
    public var id: YearMonth { month }

    /// Creates a group.
    public init(month: YearMonth, entries: [Diary]) {
        self.month = month
        self.entries = entries
    }

    /// The JSON member names, spelled out so that renaming a property never changes the wire format.
    private enum CodingKeys: String, CodingKey {
        case month = "month"
        case entries = "entries"
    }
}

// MARK: - Default implementations

extension DiaryRepository {
    /// Every entry matching a query, grouped by month, newest month first (duck-z's book view, Mongsil's list).
    ///
    /// Works on any backend: it walks every page of ``entries(_:page:)``.
    /// - Parameters:
    ///   - query: Which entries (a book's, a user's, favourites…).
    ///   - pageSize: How many entries each underlying request fetches.
    /// - Returns: The groups, newest month first, each newest day first.
    /// - Throws: What ``entries(_:page:)`` throws.
    public func entriesGroupedByMonth(_ query: DiaryQuery, pageSize: Int = 100) async throws -> [MonthGroup] {
        var entries: [Diary] = []
        for try await page in PageSequence(first: .first(size: pageSize), fetch: { try await self.entries(query, page: $0) }) {
            entries += page.items
        }
        var groups: [MonthGroup] = []
        for entry in entries {
            if groups.last?.month == entry.day.yearMonth {
                groups[groups.count - 1].entries.append(entry)
            } else {
                groups.append(MonthGroup(month: entry.day.yearMonth, entries: [entry]))
            }
        }
        return groups
    }
}
