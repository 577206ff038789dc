import Foundation

/// The SDK's date format: RFC 3339 in UTC with exactly six fractional digits, `2026-11-22T04:33:48.123456Z`.
///
/// Every date the SDK produces is aligned to whole microseconds (see ``DiaryClock``), so encoding and decoding a
/// date gives back the identical `Date`. The conversion is arithmetic (no `DateFormatter`), so it is fast on Linux.
@_spi(Engine)
public enum WireDate {
    /// Rounds a date to whole microseconds since 1970, the precision of the wire format.
    /// - Parameter date: Any date.
    /// - Returns: The nearest microsecond-aligned date.
    public static func normalized(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(microseconds(date)) / 1_000_000)
    }

    static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// Formats a date as RFC 3339 UTC with microseconds.
    /// - Parameter date: The date.
    /// - Returns: A string such as `2026-11-22T04:33:48.123456Z`.
    public static func string(from date: Date) -> String {
        let micros = microseconds(date)
        var seconds = micros / 1_000_000
        var fraction = micros % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let civil = CivilDate(daysSince1970: days)
        guard (0...9999).contains(civil.year) else {
            // Outside four digits: the general formatter, which widens the year as RFC 3339 cannot.
            return String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", civil.year, civil.month, civil.day,
                Int(secondOfDay / 3600), Int(secondOfDay % 3600 / 60), Int(secondOfDay % 60), Int(fraction))
        }
        // `yyyy-MM-ddTHH:mm:ss.ffffffZ`, 27 ASCII bytes written in place: this runs for every date of every row the
        // file store journals and every value the server sends, where `String(format:)` was a tenth of a write.
        return String(unsafeUninitializedCapacity: 27) { buffer in
            func put(_ value: Int, digits: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(truncatingIfNeeded: 48 + value % 10)
                    value /= 10
                }
            }
            put(civil.year, digits: 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(civil.month, digits: 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(civil.day, digits: 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(Int(secondOfDay / 3600), digits: 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(Int(secondOfDay % 3600 / 60), digits: 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(Int(secondOfDay % 60), digits: 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(Int(fraction), digits: 6, at: 20)
            buffer[26] = UInt8(ascii: "Z")
            return 27
        }
    }

    /// Parses an RFC 3339 timestamp: `Z` or a `±hh:mm` offset, with or without fractional seconds.
    /// - Parameter string: The timestamp.
    /// - Returns: The date, or `nil` when the string is not RFC 3339.
    public static func date(from string: String) -> Date? {
        let bytes = Array(string.utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = bytes[index + offset]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ characters: [UInt8]) -> Bool {
            guard index < bytes.count, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect([45]), let month = number(2), expect([45]), let day = number(2),
            expect([84, 116, 32]), let hour = number(2), expect([58]), let minute = number(2), expect([58]),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var micros: Int64 = 0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        if bytes[index] == 90 || bytes[index] == 122 {
            index += 1
        } else if bytes[index] == 43 || bytes[index] == 45 {
            let sign = bytes[index] == 45 ? -1 : 1
            index += 1
            guard let offsetHour = number(2), expect([58]), let offsetMinute = number(2) else { return nil }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate(year: year, month: month, day: day).daysSince1970
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        return Date(timeIntervalSince1970: Double(seconds * 1_000_000 + micros) / 1_000_000)
    }
}

/// Proleptic Gregorian calendar arithmetic (Howard Hinnant's `days_from_civil`), shared by dates and days.
struct CivilDate: Hashable, Sendable {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(daysSince1970: Int64) {
        let z = daysSince1970 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        self.year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        self.month = Int(month)
        self.day = Int(day)
    }

    var daysSince1970: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension JSONEncoder {
    /// An encoder that writes the SDK's wire format: ``WireDate`` dates and sorted keys.
    public static func diary() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.string(from: date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension JSONDecoder {
    /// A decoder that reads the SDK's wire format (``WireDate`` dates).
    public static func diary() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let string = try container.decode(String.self)
            guard let date = WireDate.date(from: string) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(string)' is not an RFC 3339 date")
            }
            return date
        }
        return decoder
    }
}
