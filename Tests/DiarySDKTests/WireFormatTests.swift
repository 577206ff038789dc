@_spi(Engine) import DiarySDK
import Foundation
import Testing

@Suite("Wire format")
struct WireFormatTests {
    @Test func datesRoundTripExactlyIncludingFractionalSeconds() throws {
        for seconds in [0.0, 1_767_225_600.123456, 1_767_225_600.999999, -86_400.5, 4_102_444_799.000001] {
            let date = WireDate.normalized(Date(timeIntervalSince1970: seconds))
            let text = WireDate.string(from: date)
            #expect(WireDate.date(from: text) == date, "\(text)")
        }
        let clock = SystemClock()
        for _ in 0..<1_000 {
            let now = clock.now()
            #expect(WireDate.date(from: WireDate.string(from: now)) == now)
        }
    }

    @Test func dateStringsHaveSixFractionalDigitsInUTC() {
        let date = Date(timeIntervalSince1970: 1_767_225_600.25)
        #expect(WireDate.string(from: date) == "2026-01-01T00:00:00.250000Z")
        #expect(WireDate.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500000Z")
    }

    @Test func dateStringsAgreeWithTheGeneralFormatterAcrossFourDigitYears() {
        // The formatter writes the 27 bytes itself; check it against `String(format:)` over Foundation's calendar
        // fields. Foundation's Gregorian calendar turns Julian before October 1582, and RFC 3339 stays proleptic
        // Gregorian, so the comparison starts in 1583; the years before are checked by their known strings below.
        var generator = SystemRandomNumberGenerator()
        let first = -12_212_553_600.0  // 1583-01-01T00:00:00Z
        let last = 253_402_300_799.0  // 9999-12-31T23:59:59Z
        let samples = [first, last, 0, -0.000001, 951_782_400, 4_107_542_400] + (0..<2_000).map { _ in
            Double.random(in: first...last, using: &generator)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for seconds in samples {
            let date = WireDate.normalized(Date(timeIntervalSince1970: seconds))
            let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
            let fraction = ((micros % 1_000_000) + 1_000_000) % 1_000_000
            let whole = Date(timeIntervalSince1970: Double((micros - fraction) / 1_000_000))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", parts.year!, parts.month!, parts.day!, parts.hour!,
                parts.minute!, parts.second!, Int(fraction))
            #expect(WireDate.string(from: date) == expected, "\(seconds)")
        }
        for text in ["0000-01-01T00:00:00.000000Z", "0004-02-29T12:30:00.000000Z", "1582-10-04T23:59:59.000000Z",
                     "9999-12-31T23:59:59.000000Z"] {
            #expect(WireDate.date(from: text).map(WireDate.string(from:)) == text)
        }
    }

    @Test func rfc3339OffsetsAndMissingFractionsParse() {
        #expect(WireDate.date(from: "2026-01-01T09:00:00+09:00") == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(WireDate.date(from: "2026-01-01T00:00:00.5Z") == Date(timeIntervalSince1970: 1_767_225_600.5))
        for bad in ["", "2026-01-01", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00Zjunk"] {
            #expect(WireDate.date(from: bad) == nil, "\(bad)")
        }
    }

    @Test func changesCarryLowerCaseIDsAndDecodeEitherCase() throws {
        let id = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
        let change = DiaryChange(entity: .post, id: id, kind: .updated, position: ChangePosition("m1.42")!)
        let json = String(decoding: try JSONEncoder.diary().encode(change), as: UTF8.self)
        #expect(json.contains(#""id":"6f9619ff-8b86-d011-b42d-00c04fc964ff""#), "\(json)")
        #expect(try JSONDecoder.diary().decode(DiaryChange.self, from: Data(json.utf8)) == change)
        let upper = Data(#"{"entity":"post","id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","kind":"updated","position":"m1.42"}"#.utf8)
        #expect(try JSONDecoder.diary().decode(DiaryChange.self, from: upper) == change)
    }

    @Test func entitiesEncodeToTheDocumentedJSON() throws {
        let diary = Diary(
            id: Diary.ID("6F9619FF-8B86-D011-B42D-00C04FC964FF")!, authorID: User.ID("00000000-0000-4000-8000-000000000001")!,
            day: LocalDate("2026-03-10")!, title: "T", body: "B", mood: .happy, tags: ["til"],
            createdAt: Date(timeIntervalSince1970: 1_773_144_000.5), updatedAt: Date(timeIntervalSince1970: 1_773_144_000.5))
        let json = String(decoding: try JSONEncoder.diary().encode(diary), as: UTF8.self)
        #expect(json.contains(#""id":"6f9619ff-8b86-d011-b42d-00c04fc964ff""#))
        #expect(json.contains(#""day":"2026-03-10""#))
        #expect(json.contains(#""createdAt":"2026-03-10T12:00:00.500000Z""#))
        #expect(json.contains(#""visibility":"private""#))
        #expect(json.contains(#""mood":"😊""#))
        let decoded = try JSONDecoder.diary().decode(Diary.self, from: Data(json.utf8))
        #expect(decoded == diary)
    }

    @Test func malformedIdsDaysAndDatesAreDecodingErrors() {
        let decoder = JSONDecoder.diary()
        #expect(throws: DecodingError.self) { try decoder.decode(User.ID.self, from: Data(#""not-a-uuid""#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(LocalDate.self, from: Data(#""2026-02-30""#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(YearMonth.self, from: Data(#""2026-13""#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode([Date].self, from: Data(#"["yesterday"]"#.utf8)) }
    }

    @Test func localDatesFollowTheWallClockOfTheirZone() {
        let instant = WireDate.date(from: "2026-03-10T15:30:00Z")!
        #expect(LocalDate(instant, in: TimeZone(identifier: "Asia/Seoul")!).description == "2026-03-11")
        #expect(LocalDate(instant, in: TimeZone(identifier: "America/Los_Angeles")!).description == "2026-03-10")
        #expect(LocalDate(Date(timeIntervalSince1970: -1), in: TimeZone(identifier: "UTC")!).description == "1969-12-31")
        #expect(LocalDate("2024-02-29")?.adding(days: 1).description == "2024-03-01")
        #expect(YearMonth("2024-02")?.numberOfDays == 29)
        #expect(YearMonth("2026-12")?.next.description == "2027-01")
    }

    @Test func errorsDescribeTheFieldAndReason() {
        let error = DiaryError.invalid("body", .blank, "body must not be blank")
        #expect(error.description == "invalid_input: body must not be blank [field: body, blank]")
        #expect(DiaryError.wrapping(CancellationError()).code == .cancelled)
        #expect(DiaryError.wrapping(error) == error)
    }
}
