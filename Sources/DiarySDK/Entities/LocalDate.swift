import Foundation

/// A calendar day with no time and no time zone: the day a diary entry belongs to.
///
/// An entry written at 23:30 in Seoul belongs to that Seoul day wherever it is read later, so entries carry a
/// `LocalDate` rather than an instant. On the wire it is `"2026-11-22"`.
public struct LocalDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The year, such as 2026.
    public let year: Int
    /// The month, 1–12.
    public let month: Int
    /// The day of the month, 1–31.
    public let day: Int

    /// Creates a day, checking that it exists.
    /// - Parameters:
    ///   - year: The year (1–9999).
    ///   - month: The month, 1–12.
    ///   - day: The day of the month.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...CivilDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `yyyy-MM-dd`.
    /// - Parameter string: The day, such as `"2026-11-22"`.
    public init?(_ string: String) {
        guard let parts = WireText.dateParts(string, withDay: true) else { return nil }
        self.init(year: parts.year, month: parts.month, day: parts.day)
    }

    /// The day an instant falls on in a time zone.
    /// - Parameters:
    ///   - date: The instant.
    ///   - timeZone: The zone whose wall clock decides the day.
    public init(_ date: Date, in timeZone: TimeZone) {
        let offset = Int64(timeZone.secondsFromGMT(for: date))
        let seconds = Int64(floor(date.timeIntervalSince1970)) + offset
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let civil = CivilDate(daysSince1970: days)
        self.year = civil.year
        self.month = civil.month
        self.day = civil.day
    }

    init(civil: CivilDate) {
        self.year = civil.year
        self.month = civil.month
        self.day = civil.day
    }

    /// Days since 1970-01-01: convenient for day arithmetic.
    public var daysSince1970: Int {
        Int(CivilDate(year: year, month: month, day: day).daysSince1970)
    }

    /// The month this day is in.
    public var yearMonth: YearMonth {
        YearMonth(uncheckedYear: year, month: month)
    }

    /// The day `count` days later (earlier when negative).
    /// - Parameter count: How many days to move.
    /// - Returns: The resulting day.
    public func adding(days count: Int) -> LocalDate {
        LocalDate(civil: CivilDate(daysSince1970: Int64(daysSince1970 + count)))
    }

    /// `yyyy-MM-dd`.
    public var description: String {
        WireText.date(year: year, month: month, day: day)
    }

    /// Orders days chronologically.
    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Decodes `"yyyy-MM-dd"`.
    /// - Throws: `DecodingError.dataCorrupted` for anything else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let value = LocalDate(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(string)' is not yyyy-MM-dd")
        }
        self = value
    }

    /// Encodes `"yyyy-MM-dd"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A month of a year, the unit of the calendar screens. On the wire it is `"2026-11"`.
public struct YearMonth: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The year.
    public let year: Int
    /// The month, 1–12.
    public let month: Int

    /// Creates a month, checking its range.
    /// - Parameters:
    ///   - year: The year (1–9999).
    ///   - month: The month, 1–12.
    public init?(year: Int, month: Int) {
        guard (1...9999).contains(year), (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
    }

    init(uncheckedYear year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    /// Parses `yyyy-MM`.
    /// - Parameter string: The month, such as `"2026-11"`.
    public init?(_ string: String) {
        guard let parts = WireText.dateParts(string, withDay: false) else { return nil }
        self.init(year: parts.year, month: parts.month)
    }

    /// The first day of the month.
    public var firstDay: LocalDate { LocalDate(civil: CivilDate(year: year, month: month, day: 1)) }

    /// How many days the month has.
    public var numberOfDays: Int { CivilDate.daysIn(month: month, year: year) }

    /// Every day of the month, in order.
    public var days: [LocalDate] {
        (1...numberOfDays).map { LocalDate(civil: CivilDate(year: year, month: month, day: $0)) }
    }

    /// The month after this one.
    public var next: YearMonth {
        month == 12 ? YearMonth(uncheckedYear: year + 1, month: 1) : YearMonth(uncheckedYear: year, month: month + 1)
    }

    /// The month before this one.
    public var previous: YearMonth {
        month == 1 ? YearMonth(uncheckedYear: year - 1, month: 12) : YearMonth(uncheckedYear: year, month: month - 1)
    }

    /// `yyyy-MM`.
    public var description: String { WireText.date(year: year, month: month, day: nil) }

    /// Orders months chronologically.
    public static func < (lhs: YearMonth, rhs: YearMonth) -> Bool {
        (lhs.year, lhs.month) < (rhs.year, rhs.month)
    }

    /// Decodes `"yyyy-MM"`.
    /// - Throws: `DecodingError.dataCorrupted` for anything else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let value = YearMonth(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(string)' is not yyyy-MM")
        }
        self = value
    }

    /// Encodes `"yyyy-MM"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
