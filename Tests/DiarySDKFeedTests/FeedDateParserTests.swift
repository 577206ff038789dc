import Foundation
import Testing
@testable import DiarySDK

@Suite("FeedDateParser")
struct FeedDateParserTests {
    /// Inputs where this parser deliberately differs from feedparser's expectation (documented in docs/FEEDS.md).
    static let deliberateDifferences: Set<String> = []

    /// Cases whose expectation is that of one of feedparser's specific parsers while its generic `parse_date` (what
    /// `FeedDateParser.date(from:)` stands for) answers otherwise; dates.json records both. `22013`: the W3C-DTF
    /// parser rejects it, the ISO 8601 one (and so `parse_date`) reads the ordinal date `YYDDD`, 2022-01-13, as it
    /// reads `03335`.
    static let genericResultCases: Set<String> = ["22013"]

    @Test("every dates.json case yields the expected UTC instant or nil")
    func datesJSONCases() throws {
        let root = try FeedFixtures.json("dates.json")
        var cases: [(input: String, expected: [Int]?)] = []
        for raw in root["unit_cases"] as? [[String: Any]] ?? [] {
            let input = raw["input"] as? String ?? ""
            if Self.genericResultCases.contains(input) {
                // Expected: feedparser's generic parse_date result, recorded beside the specific parser's.
                let iso = try #require(raw["generic_parse_date_result"] as? String, "\(input)")
                let fields = iso.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                cases.append((input, fields))
                continue
            }
            if raw["expect_reject"] as? Bool == true { cases.append((input, nil)); continue }
            let utc = (raw["expected"] as? [String: Any])?["utc"] as? [Int]
            cases.append((input, utc))
        }
        for raw in root["feed_element_cases"] as? [[String: Any]] ?? [] {
            cases.append((raw["input"] as? String ?? "", raw["expected_utc"] as? [Int]))
        }
        #expect(cases.count >= 50)
        var passed = 0
        var failures: [String] = []
        for c in cases {
            let got = FeedDateParser.date(from: c.input)
            let ok: Bool
            if let e = c.expected, e.count >= 6 {
                ok = got?.timeIntervalSince1970 == FeedFixtures.epochSeconds(e[0], e[1], e[2], e[3], e[4], e[5])
            } else {
                ok = got == nil
            }
            if ok { passed += 1 } else if !Self.deliberateDifferences.contains(c.input) {
                failures.append("\(c.input.debugDescription) -> \(got.map { "\($0)" } ?? "nil"), expected \(c.expected.map { "\($0)" } ?? "reject")")
            }
        }
        let rate = Double(passed) / Double(cases.count)
        print("dates.json pass rate: \(passed)/\(cases.count) = \(String(format: "%.1f", rate * 100))%")
        #expect(failures.isEmpty, "unexpected date failures:\n\(failures.joined(separator: "\n"))")
        #expect(rate >= 1.0)
    }

    static let extraCases: [(String, [Int]?)] = [
        ("Sat, 07 Sep 2002 00:00:01 GMT", [2002, 9, 7, 0, 0, 1]),
        ("07 Sep 2002 00:00 +0000", [2002, 9, 7, 0, 0, 0]),
        ("Sat, 7 Sep 02 09:00:01 KST", [2002, 9, 7, 0, 0, 1]),
        ("Tue, 10 Jun 2003 09:41:01 UTC", [2003, 6, 10, 9, 41, 1]),
        ("Tue, 10 Jun 2003 04:41:01 EST", [2003, 6, 10, 9, 41, 1]),
        ("Tue, 10 Jun 2003 01:41:01 PST", [2003, 6, 10, 9, 41, 1]),
        ("Tue, 10 Jun 2003 09:41:01 Z", [2003, 6, 10, 9, 41, 1]),
        ("Tue, 10 Jun 2003 08:41:01 A", [2003, 6, 10, 9, 41, 1]),
        ("Tue, 10 Jun 2003 10:41:01 N", [2003, 6, 10, 9, 41, 1]),
        ("Tue, 10 Jun 2003 11:41:01 +02:00", [2003, 6, 10, 9, 41, 1]),
        ("10 June 2003 9:41 pm GMT", [2003, 6, 10, 21, 41, 0]),
        ("Tue, 10 Jun 2003 11:41:01 GMT+0200", [2003, 6, 10, 9, 41, 1]),
        ("Tue, 10 Jun 2003 11:41:01 +0200 (CEST)", [2003, 6, 10, 9, 41, 1]),
        ("2003-06-10T09:41:01.123456Z", [2003, 6, 10, 9, 41, 1]),
        ("2003-06-10T09:41Z", [2003, 6, 10, 9, 41, 0]),
        ("2003-06-10t18:41:01+09:00", [2003, 6, 10, 9, 41, 1]),
        ("2003-06-10", [2003, 6, 10, 0, 0, 0]),
        ("20030610", [2003, 6, 10, 0, 0, 0]),
        ("2004-060", [2004, 2, 29, 0, 0, 0]),
        ("2004-05-25 오전 12:23:17", [2004, 5, 24, 15, 23, 17]),
        ("2004년 5월 28일 1:31:15", [2004, 5, 27, 16, 31, 15]),
        ("Mon Jan  5 16:29:06 2004", [2004, 1, 5, 16, 29, 6]),
        ("2020/1/10 14:33:00", [2020, 1, 10, 14, 33, 0]),
        ("  Thu, 01 Jan 2004 19:48:21 GMT\n", [2004, 1, 1, 19, 48, 21]),
        ("Fri, 30 Feb 2004 10:00:00 GMT", nil),
        ("2003-13-01", nil),
        ("2003-02-29", nil),
        ("Tue, 10 Jun 2003 09:41:01 XYZ", nil),
        ("yesterday", nil),
        ("12:30", nil),
        ("10 Jun", nil),
        ("2003-06-10T09:41:01+2500", nil),
        ("\u{0}\u{1}\u{FFFF}", nil),
    ]

    @Test("additional real-world date forms parse to the right instant; impossible dates are rejected")
    func additionalForms() {
        for (input, expected) in Self.extraCases {
            let got = FeedDateParser.date(from: input)
            if let e = expected {
                let want = FeedFixtures.epochSeconds(e[0], e[1], e[2], e[3], e[4], e[5])
                #expect(got.map { $0.timeIntervalSince1970.rounded(.down) } == want, "\(input.debugDescription)")
            } else {
                #expect(got == nil, "\(input.debugDescription) should be rejected, got \(String(describing: got))")
            }
        }
    }

    @Test("fractional seconds are kept")
    func fractionalSeconds() throws {
        let date = try #require(FeedDateParser.date(from: "1970-01-01T00:00:01.25Z"))
        #expect(date.timeIntervalSince1970 == 1.25)
    }

    @Test("the scanner is fast: 60k mixed dates well under a second")
    func throughput() {
        let inputs = ["Thu, 01 Jan 2004 19:48:21 GMT", "2003-12-31T10:14:55.123-08:00", "Sun Jan  4 16:29:06 2004", "2004-05-25 오후 11:23:17"]
        let start = Date()
        var parsed = 0
        for i in 0..<60_000 where FeedDateParser.date(from: inputs[i % 4]) != nil { parsed += 1 }
        let elapsed = Date().timeIntervalSince(start)
        print("FeedDateParser: 60000 dates in \(String(format: "%.3f", elapsed)) s")
        #expect(parsed == 60_000)
        #expect(elapsed < 10.0)
    }

    // MARK: - ISO 8601 ordinal, week and two-digit-year forms; Greek and Hungarian names

    static let isoForms: [(String, [Int])] = [
        ("03-12-31", [2003, 12, 31, 0, 0, 0]),
        ("03335", [2003, 12, 1, 0, 0, 0]),
        ("03-335", [2003, 12, 1, 0, 0, 0]),
        ("2003335", [2003, 12, 1, 0, 0, 0]),
        ("2003-335T10:14:55Z", [2003, 12, 1, 10, 14, 55]),
        ("2004-366", [2004, 12, 31, 0, 0, 0]),
        ("2003-012-31T10:14:55Z", [2003, 12, 31, 10, 14, 55]),
        ("2003-012-31", [2003, 12, 31, 0, 0, 0]),
        ("2003-W52-3", [2003, 12, 24, 0, 0, 0]),
        ("2003W523", [2003, 12, 24, 0, 0, 0]),
        ("2003-W52", [2003, 12, 22, 0, 0, 0]),
        ("2004-W01-1", [2003, 12, 29, 0, 0, 0]),
        ("2004-W53-7T12:00:00+02:00", [2005, 1, 2, 10, 0, 0]),
        ("2009-W01-1", [2008, 12, 29, 0, 0, 0]),
        ("2010-W01-1", [2010, 1, 4, 0, 0, 0]),
        ("Κυρ, 11 Ιούλ 2004 12:00:00 EST", [2004, 7, 11, 17, 0, 0]),
        ("Τετ, 01 Δεκ 2004 09:30:00 +0200", [2004, 12, 1, 7, 30, 0]),
        ("2004-július-13T9:15-05:00", [2004, 7, 13, 14, 15, 0]),
        ("2004-május-02T10:00+01:00", [2004, 5, 2, 9, 0, 0]),
        ("2004-december-31T23:59-00:00", [2004, 12, 31, 23, 59, 0]),
    ]

    @Test("ISO 8601 ordinal, week and two-digit-year dates, and Greek and Hungarian names", arguments: 0..<20)
    func isoAndLanguageForms(_ index: Int) throws {
        let (input, e) = Self.isoForms[index]
        let date = try #require(FeedDateParser.date(from: input), "\(input)")
        #expect(date.timeIntervalSince1970 == FeedFixtures.epochSeconds(e[0], e[1], e[2], e[3], e[4], e[5]), "\(input)")
    }

    @Test("impossible ordinal and week dates are rejected", arguments: [
        "2003-366", "03-000", "2003-W54-1", "2003-W53-1", "2004-W52-8", "2003-W5", "03-13-01", "2003-013-01", "Κυρ, 11 Foo 2004",
        "2004-foo-13T9:15-05:00",
    ])
    func impossibleForms(_ input: String) {
        #expect(FeedDateParser.date(from: input) == nil, "\(input)")
    }

    @Test("fractional seconds are kept to the nanosecond; later digits are dropped")
    func fractionalSecondsToNanoseconds() throws {
        let base = FeedFixtures.epochSeconds(2003, 12, 31, 10, 14, 55)
        let micro = try #require(FeedDateParser.date(from: "2003-12-31T10:14:55.123456Z"))
        #expect(abs(micro.timeIntervalSince1970 - (base + 0.123456)) < 1e-6)
        let long = try #require(FeedDateParser.date(from: "2003-12-31T10:14:55.1234567899999Z"))
        #expect(abs(long.timeIntervalSince1970 - (base + 0.123456789)) < 1e-6)
        let half = try #require(FeedDateParser.date(from: "2003-12-31T10:14:55,5+01:00"))
        #expect(half.timeIntervalSince1970 == base - 3_600 + 0.5)
    }
}

@Suite("FeedDateParser canonical RFC 822 path")
struct FeedDateParserCanonicalRFC822Tests {
    /// The fixed-position reader must give exactly what the general RFC 822 reader gives, and decline (`nil`) whatever
    /// it does not take, so that `parse(utf8:)` falls through to the general reader for it.
    @Test("the fixed-position reader agrees with the general RFC 822 reader on every form it takes, and declines the rest")
    func agreesWithGeneralReader() {
        let weekdays = ["Mon", "tue", "WED", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "feb", "MAR", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let zones = ["+0000", "+0900", "-0530", "+2359", "-2400", "+0960", "GMT", "gmt", "UT", "UTC", "Z", "EST", "+09", "+09:00"]
        let days = ["1", "01", "9", "29", "30", "31", "32", "00"]
        let times = ["00:00:00", "23:59:60", "24:00:00", "24:00:01", "12:60:00", "9:05:00"]
        var taken = 0
        var checked = 0
        for (w, weekday) in weekdays.enumerated() {
            for (m, month) in months.enumerated() {
                for day in days {
                    for time in times where (w + m) % 2 == 0 || time == "00:00:00" {
                        for zone in zones {
                            let year = ["2024", "2026", "1900", "0000"][(w + m + day.count) % 4]
                            let string = "\(weekday), \(day) \(month) \(year) \(time) \(zone)"
                            let bytes = Array(string.utf8)
                            let (fast, general) = bytes.withUnsafeBufferPointer {
                                (FeedDateParser.parseCanonicalRFC822($0), FeedDateParser.parseRFC($0))
                            }
                            checked += 1
                            if let fast {
                                taken += 1
                                #expect(fast == general, "\(string)")
                            }
                        }
                    }
                }
            }
        }
        // The canonical shapes are taken: one- and two-digit days, numeric and zero-offset zones.
        #expect(taken > 1_000)
        #expect(checked > taken)
        let declined = ["Tue, 01 Mar 2026 10:00:00 EST", "Tue, 01 Mar 2026 10:00 +0900", "Tuesday, 01 Mar 2026 10:00:00 +0900",
                        "Tue 01 Mar 2026 10:00:00 +0900", "Tue, 01 March 2026 10:00:00 +0900", "Tue, 01 Mar 26 10:00:00 +0900",
                        "Tue, 01 Mar 2026 10:00:00 +09:00", "Tue, 31 Feb 2026 10:00:00 +0900", "Tue, 01 Mar 2026 10:00:00 GMTX",
                        "Tue, 01 Mar 2026 10:00:00 +0900 (KST)", "Xyz, 01 Mar 2026 10:00:00 +0900"]
        for string in declined {
            let bytes = Array(string.utf8)
            #expect(bytes.withUnsafeBufferPointer { FeedDateParser.parseCanonicalRFC822($0) } == nil, "\(string)")
        }
        // The public entry still reads the declined forms the general reader takes.
        #expect(FeedDateParser.date(from: "Tue, 01 Mar 2026 10:00:00 EST") == Date(timeIntervalSince1970: 1_772_377_200))
        #expect(FeedDateParser.date(from: "Sun, 01 Mar 2026 10:00:00 +0900") == Date(timeIntervalSince1970: 1_772_326_800))
    }
}
