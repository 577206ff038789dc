import Foundation

/// A hand-written, allocation-light parser for the date forms found in feeds.
///
/// Accepted families: RFC 822 / RFC 1123 and their real-world variants (missing weekday or seconds,
/// single-digit days, two-digit years, full month names, named and military zones, `+hhmm` / `+hh:mm`),
/// RFC 3339 / W3C-DTF / ISO 8601 (fractional seconds, `Z`, missing seconds or zone, date only, `YYYYMMDD`,
/// `YYMMDD`, `YY-MM-DD`, `-YYMM`, `-YY-MM`, ordinal `YYYY-DDD` / `YYYYDDD` / `YYDDD` / `YY-DDD`, week dates
/// `YYYY-Www-D` / `YYYYWwwD`, the three-digit month `YYYY-0MM-DD`), asctime, Perforce (`YYYY/MM/DD`), the Korean
/// Nate / OnBlog forms (`2004-05-25 오후 11:23:17`, `2004년 05월 28일 01:31:15`, both in KST), and Greek and Hungarian
/// month and day names (`Κυρ, 11 Ιούλ 2004 12:00:00 EST`, `2004-július-13T9:15-05:00`).
/// Fractional seconds are kept to the nanosecond (later digits are dropped); the `Date` holds the nearest `Double`.
/// Strings without a zone are taken as UTC (Korean forms: KST). The instant is computed arithmetically
/// (days from civil date), without `Calendar` or `DateFormatter`.
public enum FeedDateParser: Sendable {
    /// Parses a date string found in a feed.
    /// - Parameters:
    ///   - string: The raw element text; surrounding whitespace is ignored.
    /// - Returns: The instant, or `nil` when the string is not a date this parser understands
    ///   or names an impossible date or time.
    public static func date(from string: String) -> Date? {
        if let date = parse(string) { return date }
        // Greek and Hungarian month and day names (feedparser's other languages), read as their English or numeric
        // equivalents; tried only for strings the parser did not take as they are.
        guard let translated = translatingNames(string) else { return nil }
        return parse(translated)
    }

    private static func parse(_ string: String) -> Date? {
        FeedText.withBytes(string) { parse(utf8: $0) }
    }

    /// Parses the UTF-8 bytes of a date string as it stands (no translation of Greek or Hungarian names); the feed
    /// mapper tries this on the tree's text before building a `String`.
    static func parse(utf8 buffer: UnsafeBufferPointer<UInt8>) -> Date? {
        var start = 0
        var end = buffer.count
        while start < end, isSpace(buffer[start]) { start += 1 }
        while end > start, isSpace(buffer[end - 1]) { end -= 1 }
        if start == end || end - start > 200 { return nil }
        let bytes = UnsafeBufferPointer(rebasing: buffer[start..<end])
        let first = bytes[0]
        if isDigit(first) || first == UInt8(ascii: "-") {
            if let date = parseISO(bytes) { return date }
        } else if let date = parseCanonicalRFC822(bytes) {
            return date
        }
        return parseRFC(bytes)
    }

    /// The canonical RFC 822 / RFC 1123 form almost every RSS feed writes, `Www, DD Mmm YYYY HH:MM:SS ZONE` (one- or
    /// two-digit day, zone `+hhmm`, `-hhmm`, `GMT`, `UT`, `UTC` or `Z`), read at fixed positions. Every string this
    /// accepts gives ``parseRFC(_:)``'s fields exactly (the weekday is skipped there too); anything else, and a date
    /// ``makeDate(_:)`` refuses, returns `nil` and goes through ``parseRFC(_:)``.
    @inline(__always)
    static func parseCanonicalRFC822(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        // Shortest: "Www, D Mmm YYYY HH:MM:SS Z" (26 bytes); longest: "Www, DD Mmm YYYY HH:MM:SS +hhmm" (31).
        let n = b.count
        guard n >= 26, n <= 31, b[3] == UInt8(ascii: ","), b[4] == 0x20, isWeekday(UnsafeBufferPointer(rebasing: b[0..<3])) else {
            return nil
        }
        @inline(__always) func digit(_ k: Int) -> Int? {
            let c = b[k]
            return isDigit(c) ? Int(c &- 0x30) : nil
        }
        var i = 5
        guard let d0 = digit(i) else { return nil }
        var f = Fields()
        if let d1 = digit(i + 1) {
            f.day = d0 * 10 + d1
            i += 2
        } else {
            f.day = d0
            i += 1
        }
        // " Mmm YYYY HH:MM:SS " then the zone: 19 bytes.
        guard i + 19 < n, b[i] == 0x20, b[i + 4] == 0x20, b[i + 9] == 0x20, b[i + 12] == UInt8(ascii: ":"),
              b[i + 15] == UInt8(ascii: ":"), b[i + 18] == 0x20,
              isAlpha(b[i + 1]), isAlpha(b[i + 2]), isAlpha(b[i + 3]),
              let month = monthNumber(UnsafeBufferPointer(rebasing: b[(i + 1)..<(i + 4)])),
              let y0 = digit(i + 5), let y1 = digit(i + 6), let y2 = digit(i + 7), let y3 = digit(i + 8),
              let h0 = digit(i + 10), let h1 = digit(i + 11), let m0 = digit(i + 13), let m1 = digit(i + 14),
              let s0 = digit(i + 16), let s1 = digit(i + 17)
        else { return nil }
        f.month = month
        f.year = ((y0 * 10 + y1) * 10 + y2) * 10 + y3
        f.hour = h0 * 10 + h1
        f.minute = m0 * 10 + m1
        f.second = s0 * 10 + s1
        i += 19
        let zone = n - i
        let sign = b[i]
        if zone == 5, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            guard let a = digit(i + 1), let c = digit(i + 2), let e = digit(i + 3), let g = digit(i + 4) else { return nil }
            let hours = a * 10 + c
            let minutes = e * 10 + g
            guard hours <= 23, minutes <= 59 else { return nil }
            f.offsetSeconds = (sign == UInt8(ascii: "+") ? 1 : -1) * (hours * 3_600 + minutes * 60)
        } else {
            // GMT, UT, UTC, Z in any case: offset zero.
            var key: UInt32 = 0
            for k in i..<n {
                let c = b[k]
                guard isAlpha(c) else { return nil }
                key = key << 8 | UInt32(c | 0x20)
            }
            guard zone <= 3, key == 0x67_6D74 || key == 0x75_74 || key == 0x75_7463 || key == 0x7A else { return nil }
        }
        return makeDate(f)
    }

    // MARK: - Shared helpers

    struct Fields {
        var year = 0
        var month = 1
        var day = 1
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var offsetSeconds = 0
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    @inline(__always) static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C || byte == 0x0B
    }
    @inline(__always) static func isAlpha(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
    }

    /// Days since 1970-01-01 of a proleptic Gregorian civil date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Expands a two-digit year the way feed readers do: 00–49 → 20xx, 50–99 → 19xx.
    static func expandYear(_ value: Int, digits: Int) -> Int {
        guard digits <= 2 else { return value }
        return value < 50 ? 2000 + value : 1900 + value
    }

    /// Validates the fields and converts them to a `Date`.
    static func makeDate(_ f: Fields) -> Date? {
        guard f.year >= 1, f.year <= 9999, f.month >= 1, f.month <= 12,
              f.day >= 1, f.day <= daysInMonth(f.month, year: f.year),
              f.hour >= 0, f.hour <= 24, f.minute >= 0, f.minute <= 59, f.second >= 0, f.second <= 60
        else { return nil }
        if f.hour == 24 && (f.minute != 0 || f.second != 0) { return nil }
        let days = daysFromCivil(year: f.year, month: f.month, day: f.day)
        let seconds = days * 86_400 + f.hour * 3_600 + f.minute * 60 + f.second - f.offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + f.fraction)
    }

    /// Reads up to `max` ASCII digits at `index`.
    @inline(__always)
    static func digits(_ b: UnsafeBufferPointer<UInt8>, _ index: inout Int, max: Int = 9) -> (value: Int, count: Int) {
        var value = 0
        var count = 0
        while index < b.count, count < max, isDigit(b[index]) {
            value = value * 10 + Int(b[index] - 0x30)
            index += 1
            count += 1
        }
        return (value, count)
    }

    /// Parses a numeric zone offset (`+hh`, `+hhmm`, `+hh:mm`) starting at the sign; returns seconds east of UTC.
    static func numericOffset(_ b: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        guard index < b.count else { return nil }
        let sign: Int
        switch b[index] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        index += 1
        let start = index
        let run = digits(b, &index, max: 4)
        var hours = 0
        var minutes = 0
        switch run.count {
        case 1, 2:
            hours = run.value
            if index < b.count, b[index] == UInt8(ascii: ":") {
                index += 1
                let m = digits(b, &index, max: 2)
                guard m.count == 2 else { return nil }
                minutes = m.value
            }
        case 3: hours = run.value / 100; minutes = run.value % 100
        case 4: hours = run.value / 100; minutes = run.value % 100
        default:
            index = start
            return nil
        }
        guard hours <= 23, minutes <= 59 else { return nil }
        return sign * (hours * 3_600 + minutes * 60)
    }

    /// Parses `hh:mm[:ss[.fff]]` (hour may be one digit) into the fields.
    static func clock(_ b: UnsafeBufferPointer<UInt8>, _ index: inout Int, into f: inout Fields) -> Bool {
        let h = digits(b, &index, max: 2)
        guard h.count >= 1, index < b.count, b[index] == UInt8(ascii: ":") else { return false }
        index += 1
        let m = digits(b, &index, max: 2)
        guard m.count == 2 else { return false }
        f.hour = h.value
        f.minute = m.value
        if index < b.count, b[index] == UInt8(ascii: ":") {
            index += 1
            let s = digits(b, &index, max: 2)
            guard s.count == 2 else { return false }
            f.second = s.value
            if index + 1 < b.count, b[index] == UInt8(ascii: ".") || b[index] == UInt8(ascii: ","), isDigit(b[index + 1]) {
                // Nanoseconds: the first nine digits count, later ones are dropped (truncated).
                index += 1
                var nanoseconds = 0
                var count = 0
                while index < b.count, isDigit(b[index]) {
                    if count < 9 {
                        nanoseconds = nanoseconds * 10 + Int(b[index] - 0x30)
                        count += 1
                    }
                    index += 1
                }
                for _ in count..<9 { nanoseconds *= 10 }
                f.fraction = Double(nanoseconds) / 1e9
            }
        }
        return true
    }
}
