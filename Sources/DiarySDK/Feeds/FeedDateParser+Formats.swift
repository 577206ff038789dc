import Foundation

extension FeedDateParser {
    // UTF-8 of the Korean markers used by the Nate and OnBlog forms.
    static let koreanAM: [UInt8] = [0xEC, 0x98, 0xA4, 0xEC, 0xA0, 0x84] // 오전
    static let koreanPM: [UInt8] = [0xEC, 0x98, 0xA4, 0xED, 0x9B, 0x84] // 오후
    static let koreanYear: [UInt8] = [0xEB, 0x85, 0x84] // 년
    static let koreanMonth: [UInt8] = [0xEC, 0x9B, 0x94] // 월
    static let koreanDay: [UInt8] = [0xEC, 0x9D, 0xBC] // 일
    static let kstOffset = 9 * 3_600

    static func matches(_ b: UnsafeBufferPointer<UInt8>, _ index: Int, _ marker: [UInt8]) -> Bool {
        guard index + marker.count <= b.count else { return false }
        for k in 0..<marker.count where b[index + k] != marker[k] { return false }
        return true
    }

    static func skipSpaces(_ b: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Bool {
        let start = index
        while index < b.count, isSpace(b[index]) { index += 1 }
        return index > start
    }

    /// ISO 8601 / W3C-DTF / RFC 3339 and the Korean numeric forms.
    static func parseISO(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        var f = Fields()
        var i = 0
        let n = b.count
        var korean = false
        if b[0] == UInt8(ascii: "-") {
            // -YYMM or -YY-MM (ISO 8601 truncated forms)
            i = 1
            let y = digits(b, &i, max: 2)
            guard y.count == 2 else { return nil }
            if i < n, b[i] == UInt8(ascii: "-") { i += 1 }
            let m = digits(b, &i, max: 2)
            guard m.count == 2, i == n else { return nil }
            f.year = expandYear(y.value, digits: 2)
            f.month = m.value
            return makeDate(f)
        }
        let run = digits(b, &i, max: 8)
        if i < n, isDigit(b[i]) { return nil }
        switch run.count {
        case 4 where i < n && (b[i] == UInt8(ascii: "W") || (b[i] == UInt8(ascii: "-") && i + 1 < n && b[i + 1] == UInt8(ascii: "W"))):
            // ISO week date: YYYY-Www[-D] or YYYYWww[D]
            i += b[i] == UInt8(ascii: "-") ? 2 : 1
            let week = digits(b, &i, max: 2)
            guard week.count == 2 else { return nil }
            var weekday = 1
            if i < n, b[i] == UInt8(ascii: "-") || isDigit(b[i]) {
                if b[i] == UInt8(ascii: "-") { i += 1 }
                let d = digits(b, &i, max: 1)
                guard d.count == 1 else { return nil }
                weekday = d.value
            }
            guard setWeekDate(year: run.value, week: week.value, weekday: weekday, into: &f) else { return nil }
        case 4:
            f.year = run.value
            if i < n, b[i] == UInt8(ascii: "-") {
                i += 1
                let m = digits(b, &i, max: 3)
                if m.count == 3, i < n, b[i] == UInt8(ascii: "-"), b[i - 3] == UInt8(ascii: "0") {
                    // YYYY-0MM-DD: a month written with three digits (feedparser's `YYYY-0MM?-?DD`)
                    i += 1
                    let d = digits(b, &i, max: 2)
                    guard d.count >= 1 else { return nil }
                    f.month = m.value
                    f.day = d.value
                } else if m.count == 3 {
                    guard setOrdinal(year: f.year, day: m.value, into: &f) else { return nil }
                } else {
                    guard m.count >= 1 else { return nil }
                    f.month = m.value
                    if i < n, b[i] == UInt8(ascii: "-") {
                        i += 1
                        let d = digits(b, &i, max: 2)
                        guard d.count >= 1 else { return nil }
                        f.day = d.value
                    }
                }
            } else if matches(b, i, koreanYear) {
                // 2004년 05월 28일 01:31:15
                korean = true
                i += 3
                _ = skipSpaces(b, &i)
                let m = digits(b, &i, max: 2)
                guard m.count >= 1, matches(b, i, koreanMonth) else { return nil }
                i += 3
                _ = skipSpaces(b, &i)
                let d = digits(b, &i, max: 2)
                guard d.count >= 1, matches(b, i, koreanDay) else { return nil }
                i += 3
                f.month = m.value
                f.day = d.value
            }
        case 8:
            f.year = run.value / 10_000
            f.month = run.value / 100 % 100
            f.day = run.value % 100
        case 6:
            f.year = expandYear(run.value / 10_000, digits: 2)
            f.month = run.value / 100 % 100
            f.day = run.value % 100
        case 7:
            // YYYYDDD (ordinal)
            guard setOrdinal(year: run.value / 1_000, day: run.value % 1_000, into: &f) else { return nil }
        case 5:
            // YYDDD (ordinal, two-digit year)
            guard setOrdinal(year: expandYear(run.value / 1_000, digits: 2), day: run.value % 1_000, into: &f) else { return nil }
        case 2 where i < n && b[i] == UInt8(ascii: "-"):
            // YY-MM-DD or YY-DDD (two-digit year)
            f.year = expandYear(run.value, digits: 2)
            i += 1
            let m = digits(b, &i, max: 3)
            if m.count == 3 {
                guard setOrdinal(year: f.year, day: m.value, into: &f) else { return nil }
            } else {
                guard m.count == 2, i < n, b[i] == UInt8(ascii: "-") else { return nil }
                i += 1
                let d = digits(b, &i, max: 2)
                guard d.count == 2 else { return nil }
                f.month = m.value
                f.day = d.value
            }
        default:
            return nil
        }
        // Time part.
        var haveTime = false
        if i < n {
            var separated = false
            if b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") {
                i += 1
                separated = true
            } else {
                separated = skipSpaces(b, &i)
            }
            guard separated, i < n else { return i == n && separated ? makeDate(f) : nil }
            var meridian = 0
            if matches(b, i, koreanAM) || matches(b, i, koreanPM) {
                meridian = matches(b, i, koreanPM) ? 2 : 1
                korean = true
                i += 6
                _ = skipSpaces(b, &i)
            }
            guard clock(b, &i, into: &f) else { return nil }
            haveTime = true
            if meridian == 2, f.hour < 12 { f.hour += 12 }
            if meridian == 1, f.hour == 12 { f.hour = 0 }
        }
        // Zone, only after a time.
        var haveZone = false
        if haveTime, i < n {
            _ = skipSpaces(b, &i)
            if i < n {
                if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z"), i + 1 == n {
                    i += 1
                    haveZone = true
                } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                    guard let offset = numericOffset(b, &i) else { return nil }
                    f.offsetSeconds = offset
                    haveZone = true
                } else if isAlpha(b[i]) {
                    let start = i
                    while i < n, isAlpha(b[i]) || b[i] == UInt8(ascii: "/") { i += 1 }
                    guard let offset = zoneOffset(UnsafeBufferPointer(rebasing: b[start..<i])) else { return nil }
                    f.offsetSeconds = offset
                    haveZone = true
                }
            }
        }
        guard i == n else { return nil }
        if korean, !haveZone { f.offsetSeconds = kstOffset }
        return makeDate(f)
    }

    /// Sets month and day from an ordinal day of `year` (1–365, or 366 in a leap year).
    static func setOrdinal(year: Int, day: Int, into f: inout Fields) -> Bool {
        guard day >= 1, day <= (isLeap(year) ? 366 : 365) else { return false }
        var remaining = day
        var month = 1
        while remaining > daysInMonth(month, year: year) {
            remaining -= daysInMonth(month, year: year)
            month += 1
        }
        f.year = year
        f.month = month
        f.day = remaining
        return true
    }

    /// Sets the civil date of an ISO 8601 week date: week 1 is the week with the year's first Thursday (the one that
    /// holds 4 January); `weekday` 1 is Monday … 7 Sunday.
    static func setWeekDate(year: Int, week: Int, weekday: Int, into f: inout Fields) -> Bool {
        guard year >= 1, week >= 1, week <= 53, weekday >= 1, weekday <= 7 else { return false }
        let january4 = daysFromCivil(year: year, month: 1, day: 4)
        // 1970-01-01 was a Thursday (ISO weekday 4).
        let january4Weekday = ((january4 % 7) + 7 + 3) % 7 + 1
        let days = january4 - (january4Weekday - 1) + (week - 1) * 7 + (weekday - 1)
        let civil = civilFromDays(days)
        // Week 53 exists only in years whose week-numbering year reaches it.
        if week == 53, civilFromDays(days - (weekday - 1) + 3).year != year { return false }
        f.year = civil.year
        f.month = civil.month
        f.day = civil.day
        return true
    }

    /// The proleptic Gregorian civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// RFC 822 and its relatives: tokens in any reasonable order (weekday, day, month name, year, clock, zone).
    static func parseRFC(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        var f = Fields()
        var haveDay = false, haveMonth = false, haveYear = false, haveTime = false, haveZone = false
        var meridian = 0
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if isSpace(c) || c == UInt8(ascii: ",") { i += 1; continue }
            if c == UInt8(ascii: "(") {
                // RFC 822 comment, e.g. "+0200 (CEST)"
                while i < n, b[i] != UInt8(ascii: ")") { i += 1 }
                i += 1
                continue
            }
            if isDigit(c) {
                let start = i
                let run = digits(b, &i, max: 9)
                if i < n, b[i] == UInt8(ascii: ":") {
                    i = start
                    guard !haveTime, clock(b, &i, into: &f) else { return nil }
                    haveTime = true
                    continue
                }
                if i < n, b[i] == UInt8(ascii: "/") {
                    // Perforce: YYYY/MM/DD
                    guard run.count == 4, !haveYear, !haveMonth, !haveDay else { return nil }
                    i += 1
                    let m = digits(b, &i, max: 2)
                    guard m.count >= 1, i < n, b[i] == UInt8(ascii: "/") else { return nil }
                    i += 1
                    let d = digits(b, &i, max: 2)
                    guard d.count >= 1 else { return nil }
                    f.year = run.value; f.month = m.value; f.day = d.value
                    haveYear = true; haveMonth = true; haveDay = true
                    continue
                }
                if run.count == 4 && !haveYear {
                    f.year = run.value
                    haveYear = true
                } else if run.count <= 2 && !haveDay {
                    f.day = run.value
                    haveDay = true
                } else if run.count <= 2 && !haveYear {
                    f.year = expandYear(run.value, digits: run.count)
                    haveYear = true
                } else {
                    return nil
                }
                if i < n, b[i] == UInt8(ascii: "-") { i += 1 } // 01-Jan-2004
                continue
            }
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                guard !haveZone, let offset = numericOffset(b, &i) else { return nil }
                f.offsetSeconds = offset
                haveZone = true
                continue
            }
            if isAlpha(c) {
                let start = i
                while i < n, isAlpha(b[i]) || (b[i] == UInt8(ascii: "/") && i + 1 < n && isAlpha(b[i + 1])) { i += 1 }
                let word = UnsafeBufferPointer(rebasing: b[start..<i])
                if i < n, b[i] == UInt8(ascii: ".") { i += 1 }
                if i < n, b[i] == UInt8(ascii: "-"), i + 1 < n, isDigit(b[i + 1]), !haveYear, haveDay { i += 1 }
                if let month = monthNumber(word) {
                    guard !haveMonth else { return nil }
                    f.month = month
                    haveMonth = true
                } else if isWeekday(word) {
                    continue
                } else if let m = meridianValue(word) {
                    meridian = m
                } else if let offset = zoneOffset(word) {
                    guard !haveZone else { return nil }
                    f.offsetSeconds = offset
                    haveZone = true
                    // "GMT+0100": a numeric offset glued to a zero zone name.
                    if offset == 0, i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                        guard let extra = numericOffset(b, &i) else { return nil }
                        f.offsetSeconds = extra
                    }
                } else {
                    return nil
                }
                continue
            }
            return nil
        }
        guard haveDay, haveMonth, haveYear else { return nil }
        if meridian == 2, f.hour < 12 { f.hour += 12 }
        if meridian == 1, f.hour == 12 { f.hour = 0 }
        return makeDate(f)
    }
}
