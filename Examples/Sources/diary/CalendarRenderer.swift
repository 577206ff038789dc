import DiarySDK

/// Draws a month as a grid, Monday first, with each day's mood (or a dot for a day with posts only).
enum CalendarRenderer {
    static func render(_ calendar: MonthCalendar, streak: Streak) -> String {
        let month = calendar.month
        let byDay = Dictionary(uniqueKeysWithValues: calendar.days.map { ($0.date, $0) })
        // 1970-01-01 was a Thursday: index 3 when Monday is 0.
        let firstWeekday = (month.firstDay.daysSince1970 % 7 + 7 + 3) % 7
        var lines = ["        \(monthName(month.month)) \(month.year)", " Mo   Tu   We   Th   Fr   Sa   Su"]
        var cells = [String](repeating: "     ", count: firstWeekday)
        for day in month.days {
            let mark: String
            if let entry = byDay[day] {
                mark = entry.mood?.rawValue ?? (entry.entryCount > 0 ? "✎ " : "• ")
            } else {
                mark = "  "
            }
            let cell = (day.day < 10 ? " " : "") + "\(day.day)" + mark
            cells.append(cell + String(repeating: " ", count: max(1, 5 - Output.displayWidth(cell))))
        }
        for week in stride(from: 0, to: cells.count, by: 7) {
            lines.append(cells[week..<min(week + 7, cells.count)].joined().trimmingTrailingSpaces())
        }
        let entries = calendar.days.reduce(0) { $0 + $1.entryCount }
        let posts = calendar.days.reduce(0) { $0 + $1.postCount }
        lines.append("")
        lines.append(
            "\(plural(calendar.days.count, "day")) written · \(plural(entries, "entry", "entries")) · \(plural(posts, "post"))")
        lines.append(
            "Current streak: \(streak.current) day\(streak.current == 1 ? "" : "s")"
                + (streak.current > 0 && !streak.includesToday ? " (write today to keep it)" : "")
                + " · Longest: \(streak.longest) day\(streak.longest == 1 ? "" : "s")")
        return lines.joined(separator: "\n")
    }

    static func plural(_ count: Int, _ one: String, _ many: String? = nil) -> String {
        "\(count) \(count == 1 ? one : (many ?? one + "s"))"
    }

    static func monthName(_ month: Int) -> String {
        ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
            "December"][month - 1]
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
