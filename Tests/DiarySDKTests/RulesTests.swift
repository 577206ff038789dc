@_spi(Engine) import DiarySDK
import Foundation
import Testing

@Suite("Rules")
struct RulesTests {
    let today = LocalDate("2026-03-10")!

    @Test func streakIsZeroWithoutDays() {
        #expect(StreakCalculator.streak(days: [], today: today) == Streak(current: 0, longest: 0, includesToday: false, lastDay: nil))
    }

    @Test func streakCountsBackFromTodayOrYesterday() {
        let days = ["2026-03-08", "2026-03-09"].map { LocalDate($0)! }
        #expect(StreakCalculator.streak(days: days, today: today).current == 2)
        #expect(StreakCalculator.streak(days: days + [today], today: today).current == 3)
        #expect(StreakCalculator.streak(days: days, today: LocalDate("2026-03-11")!).current == 0)
    }

    @Test func longestStreakSurvivesAcrossMonthAndYearEnds() {
        let days = ["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02", "2026-03-10"].map { LocalDate($0)! }
        let streak = StreakCalculator.streak(days: days + days, today: today)
        #expect(streak.longest == 4)
        #expect(streak.current == 1)
    }

    @Test(arguments: ["a@b.co", "first.last+tag@sub.example.com", " Mixed@Example.COM "])
    func validEmailsAreAcceptedAndLowercased(_ email: String) throws {
        let normalized = try Validation.email(email)
        #expect(normalized == normalized.lowercased())
        #expect(!normalized.hasPrefix(" "))
    }

    @Test(arguments: ["", "plain", "a@b", "a@.com", "a..b@c.com", ".a@b.com", "a@b..com", "a@-b.com", "한글@example.com"])
    func malformedEmailsAreRejected(_ email: String) {
        #expect(throws: DiaryError.self) { try Validation.email(email) }
    }

    @Test(arguments: ["몽실이", "duck_z", "Sally.M", "ab"])
    func nicknamesInAnyScriptAreAccepted(_ nickname: String) throws {
        #expect(try Validation.nickname(nickname) == nickname)
    }

    @Test func tagsAreNormalised() throws {
        #expect(try Validation.tags([" #Swift", "swift", "TIL", "##til", "iOS"]) == ["Swift", "TIL", "iOS"])
        #expect(throws: DiaryError.self) { try Validation.tags(["  "]) }
    }

    @Test func webAddressesTypedByUsersGainAScheme() throws {
        #expect(try Validation.webURL(fromUserInput: "velog.io/@alice", field: "url").absoluteString == "https://velog.io/@alice")
        #expect(throws: DiaryError.self) { try Validation.webURL(fromUserInput: "not a url", field: "url") }
        #expect(throws: DiaryError.self) { try Validation.webURL(fromUserInput: "ftp://x.example", field: "url") }
    }
}
