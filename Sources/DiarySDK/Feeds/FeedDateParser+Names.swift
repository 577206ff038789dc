import Foundation

extension FeedDateParser {
    static let monthNames: [[UInt8]] = ["january", "february", "march", "april", "may", "june", "july",
                                        "august", "september", "october", "november", "december"].map { Array($0.utf8) }
    static let weekdayNames: [[UInt8]] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                                          "sunday"].map { Array($0.utf8) }

    /// Named zones in hours east of UTC (quarter hours allowed). North-American short forms (ET, PT…)
    /// follow feedparser and use standard time. Single letters are RFC 822 military zones.
    static let zoneTable: [String: Double] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "etc/gmt": 0, "etc/utc": 0, "wet": 0,
        "est": -5, "edt": -4, "et": -5, "cst": -6, "cdt": -5, "ct": -6,
        "mst": -7, "mdt": -6, "mt": -7, "pst": -8, "pdt": -7, "pt": -8,
        "ast": -4, "adt": -3, "at": -4, "akst": -9, "akdt": -8, "hst": -10, "nst": -3.5, "ndt": -2.5,
        "bst": 1, "ist": 5.5, "cet": 1, "cest": 2, "met": 1, "mest": 2, "mez": 1, "mesz": 2,
        "eet": 2, "eest": 3, "west": 1, "msk": 3, "msd": 4,
        "kst": 9, "jst": 9, "hkt": 8, "sgt": 8, "awst": 8, "acst": 9.5, "acdt": 10.5,
        "aest": 10, "aedt": 11, "nzst": 12, "nzdt": 13, "wib": 7, "pht": 8, "cct": 8,
        // RFC 822 military zones, with RFC 822's own signs (as feedparser does).
        "a": -1, "b": -2, "c": -3, "d": -4, "e": -5, "f": -6, "g": -7, "h": -8, "i": -9,
        "k": -10, "l": -11, "m": -12, "n": 1, "o": 2, "p": 3, "q": 4, "r": 5, "s": 6, "t": 7,
        "u": 8, "v": 9, "w": 10, "x": 11, "y": 12,
    ]

    static func lowercased(_ word: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        word.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    /// Whether `word`, lowercased (ASCII), is a prefix of `name` (compared in place, without allocating).
    @inline(__always)
    static func isLowercasedPrefix(_ word: UnsafeBufferPointer<UInt8>, of name: [UInt8]) -> Bool {
        guard word.count <= name.count else { return false }
        for k in 0..<word.count {
            let c = word[k]
            if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != name[k] { return false }
        }
        return true
    }

    /// A month from its English name or an abbreviation of at least three letters.
    static func monthNumber(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        guard word.count >= 3, word.count <= 9 else { return nil }
        // The first three letters tell the twelve names apart: one candidate, then the rest of the word against it.
        let index: Int
        switch threeLetterKey(word) {
        case 0x6A616E: index = 0 // jan
        case 0x666562: index = 1 // feb
        case 0x6D6172: index = 2 // mar
        case 0x617072: index = 3 // apr
        case 0x6D6179: index = 4 // may
        case 0x6A756E: index = 5 // jun
        case 0x6A756C: index = 6 // jul
        case 0x617567: index = 7 // aug
        case 0x736570: index = 8 // sep
        case 0x6F6374: index = 9 // oct
        case 0x6E6F76: index = 10 // nov
        case 0x646563: index = 11 // dec
        default: return nil
        }
        return isLowercasedPrefix(word, of: monthNames[index]) ? index + 1 : nil
    }

    static func isWeekday(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        guard word.count >= 3, word.count <= 9 else { return false }
        let index: Int
        switch threeLetterKey(word) {
        case 0x6D6F6E: index = 0 // mon
        case 0x747565: index = 1 // tue
        case 0x776564: index = 2 // wed
        case 0x746875: index = 3 // thu
        case 0x667269: index = 4 // fri
        case 0x736174: index = 5 // sat
        case 0x73756E: index = 6 // sun
        default: return false
        }
        return isLowercasedPrefix(word, of: weekdayNames[index])
    }

    /// The first three bytes of `word` (at least three), ASCII-lowercased, as one number (`"Mar"` → `0x6D6172`).
    @inline(__always)
    static func threeLetterKey(_ word: UnsafeBufferPointer<UInt8>) -> UInt32 {
        @inline(__always) func lower(_ c: UInt8) -> UInt32 { UInt32(c >= 0x41 && c <= 0x5A ? c | 0x20 : c) }
        return lower(word[0]) << 16 | lower(word[1]) << 8 | lower(word[2])
    }

    /// Greek month and weekday abbreviations as feedparser reads them (`Κυρ, 11 Ιούλ 2004 12:00:00 EST`), with the
    /// accented and unaccented spellings found in feeds, mapped to the English abbreviations.
    static let greekNames: [(String, String)] = [
        ("Ιαν", "Jan"), ("Φεβ", "Feb"), ("Μάώ", "Mar"), ("Μαώ", "Mar"), ("Μάρ", "Mar"), ("Μαρ", "Mar"), ("Απρ", "Apr"),
        ("Μάι", "May"), ("Μαϊ", "May"), ("Μαι", "May"), ("Ιούν", "Jun"), ("Ιουν", "Jun"), ("Ιον", "Jun"),
        ("Ιούλ", "Jul"), ("Ιουλ", "Jul"), ("Ιολ", "Jul"), ("Αύγ", "Aug"), ("Αυγ", "Aug"), ("Σεπ", "Sep"),
        ("Οκτ", "Oct"), ("Νοέ", "Nov"), ("Νοε", "Nov"), ("Δεκ", "Dec"),
        ("Κυρ", "Sun"), ("Δευ", "Mon"), ("Τρι", "Tue"), ("Τετ", "Wed"), ("Πεμ", "Thu"), ("Πέμ", "Thu"), ("Παρ", "Fri"),
        ("Σαβ", "Sat"), ("Σάβ", "Sat"),
    ]

    /// Hungarian month names as feedparser reads them (`2004-július-13T9:15-05:00`), with feedparser's own
    /// spellings (`februári`, `máujus`) beside the standard ones, mapped to month numbers.
    static let hungarianMonths: [(String, String)] = [
        ("január", "01"), ("februári", "02"), ("február", "02"), ("március", "03"), ("április", "04"),
        ("máujus", "05"), ("május", "05"), ("június", "06"), ("július", "07"), ("augusztus", "08"),
        ("szeptember", "09"), ("október", "10"), ("november", "11"), ("december", "12"),
    ]

    /// `string` with its Greek or Hungarian names replaced (`nil` when it holds none). Hungarian names are matched
    /// only between hyphens (`YYYY-name-DD`), the one form that uses them, so an ASCII name such as `november` in an
    /// English date is left alone.
    static func translatingNames(_ string: String) -> String? {
        var result = string
        var changed = false
        for (name, english) in greekNames where result.contains(name) {
            result = result.replacingOccurrences(of: name, with: english)
            changed = true
        }
        let lowered = result.lowercased()
        for (name, number) in hungarianMonths {
            if let range = lowered.range(of: "-" + name + "-") {
                let offset = lowered.distance(from: lowered.startIndex, to: range.lowerBound)
                let length = lowered.distance(from: range.lowerBound, to: range.upperBound)
                let start = result.index(result.startIndex, offsetBy: offset)
                let end = result.index(start, offsetBy: length)
                result.replaceSubrange(start..<end, with: "-" + number + "-")
                changed = true
                break
            }
        }
        return changed ? result : nil
    }

    static let meridians: [[UInt8]] = [Array("am".utf8), Array("pm".utf8)]

    static func meridianValue(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        guard word.count == 2 else { return nil }
        if isLowercasedPrefix(word, of: meridians[0]) { return 1 }
        if isLowercasedPrefix(word, of: meridians[1]) { return 2 }
        return nil
    }

    /// The offset in seconds east of UTC of a zone name, or `nil` if unknown.
    static func zoneOffset(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        guard word.count <= 8 else { return nil }
        let key = String(decoding: lowercased(word), as: UTF8.self)
        guard let hours = zoneTable[key] else { return nil }
        return Int(hours * 3_600)
    }
}
