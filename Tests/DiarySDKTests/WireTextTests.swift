@testable import DiarySDK
import Foundation
import Testing

/// The hand-written readers and writers of ids, days and post sources agree with Foundation and with what Swift
/// synthesises, so the wire format did not change when they replaced them.
@Suite("Wire text")
struct WireTextTests {
    @Test func idsReadAndWriteLikeFoundation() throws {
        for _ in 0..<2_000 {
            let uuid = UUID()
            let lower = WireText.lowercase(uuid)
            #expect(lower == uuid.uuidString.lowercased())
            #expect(WireText.uuid(lower) == uuid)
            #expect(WireText.uuid(uuid.uuidString) == uuid)
            #expect(Post.ID(lower)?.rawValue == uuid)
        }
    }

    @Test(arguments: [
        "", "8A1C0A4E-2B3D-4C5E-8F60-718293A4B5C", "8A1C0A4E-2B3D-4C5E-8F60-718293A4B5C6D", "8A1C0A4E+2B3D-4C5E-8F60-718293A4B5C6",
        "8A1C0A4E-2B3D-4C5E-8F60718293A4B5C6-", "8G1C0A4E-2B3D-4C5E-8F60-718293A4B5C6", " 8A1C0A4E-2B3D-4C5E-8F60-718293A4B5C",
        "8a1c0a4e2b3d4c5e8f60718293a4b5c6", "８A1C0A4E-2B3D-4C5E-8F60-718293A4B5C",
    ])
    func malformedIdsAreRejected(_ text: String) throws {
        // Stricter than Foundation on Linux, whose `sscanf`-based parser accepts " 8A1C…B5C" (leading space, a
        // digit short) as …B50C.
        #expect(WireText.uuid(text) == nil)
        let json = Data("[\"\(text)\"]".utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder.diary().decode([User.ID].self, from: json) }
    }

    @Test func idsOrderAsTheirStrings() {
        let ids = (0..<500).map { _ in Diary.ID(UUID()) }
        #expect(ids.sorted() == ids.sorted { $0.rawValue.uuidString < $1.rawValue.uuidString })
    }

    @Test func daysAndMonthsReadAndWriteTheirFixedForms() throws {
        var day = LocalDate(year: 1, month: 1, day: 1)!
        while day.year < 2_200 {
            let text = day.description
            #expect(text == String(format: "%04d-%02d-%02d", day.year, day.month, day.day))
            #expect(LocalDate(text) == day)
            #expect(day.yearMonth.description == String(format: "%04d-%02d", day.year, day.month))
            #expect(YearMonth(day.yearMonth.description) == day.yearMonth)
            day = day.adding(days: day.year < 1_990 ? 997 : 1)
        }
        #expect(LocalDate("9999-12-31")?.description == "9999-12-31")
        // Day arithmetic can leave 1...9999; such days still print as `String(format:)` printed them.
        for far in [LocalDate(year: 1, month: 1, day: 1)!.adding(days: -800), LocalDate(year: 9999, month: 12, day: 31)!.adding(days: 400)] {
            #expect(far.description == String(format: "%04d-%02d-%02d", far.year, far.month, far.day))
            #expect(far.yearMonth.description == String(format: "%04d-%02d", far.year, far.month))
        }
    }

    @Test(arguments: [
        "", "2026-1-01", "2026-01-1", "+202-01-01", "2026/01/01", "2026-13-01", "2026-02-30", "0000-01-01", "2026-01-01T",
        "２０２６-01-01", "20260101", " 2026-01-01",
    ])
    func malformedDaysAreRejected(_ text: String) {
        #expect(LocalDate(text) == nil)
    }

    @Test(arguments: ["", "2026-1", "2026-13", "2026-00", "+202-01", "2026-01-01", "2026/01"])
    func malformedMonthsAreRejected(_ text: String) {
        #expect(YearMonth(text) == nil)
    }
}
