import DiarySDK
import Foundation

extension ConformanceSuite {
    static let calendarChecks: [ConformanceCheck] = [
        ConformanceCheck("calendar", "monthCalendarShowsDaysWithTheMoodOfTheLatestEntry") { context in
            let alice = try await context.user("alice")
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-03"), body: "Morning", mood: .sad))
            try await context.setNow(epoch.addingTimeInterval(3600))
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-03"), body: "Evening", mood: .happy))
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-07"), body: "No mood"))
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-04-01"), body: "Next month", mood: .angry))
            let calendar = try await alice.sdk.diaries.calendar(month("2026-03"), of: nil)
            try expectEqual(calendar.days.map(\.date), [day("2026-03-03"), day("2026-03-07")])
            try expectEqual(calendar.days[0].mood, .happy)
            try expectEqual(calendar.days[0].entryCount, 2)
            try expectEqual(calendar.days[1].mood, nil)
        },
        ConformanceCheck("calendar", "postsCountOnTheCalendarOnTheirDay") { context in
            let alice = try await context.user("alice")
            _ = try await alice.sdk.posts.publish(.init(title: "TIL", body: "Actors"))
            let calendar = try await alice.sdk.diaries.calendar(month("2026-03"), of: nil)
            try expectEqual(calendar.days.map(\.date), [day("2026-03-10")])
            try expectEqual(calendar.days[0].postCount, 1)
            try expectEqual(calendar.days[0].entryCount, 0)
        },
        ConformanceCheck("calendar", "anotherUsersCalendarCountsOnlyWhatTheViewerMaySee") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-01"), body: "Private"))
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-02"), body: "Shared", mood: .calm, visibility: .shared))
            _ = try await alice.sdk.posts.publish(.init(title: "Anon", body: "Who?", isAnonymous: true))
            let seen = try await bob.sdk.diaries.calendar(month("2026-03"), of: alice.id)
            try expectEqual(seen.days.map(\.date), [day("2026-03-02")])
            let own = try await alice.sdk.diaries.calendar(month("2026-03"), of: nil)
            try expectEqual(own.days.map(\.date), [day("2026-03-01"), day("2026-03-02"), day("2026-03-10")])
        },
        ConformanceCheck("calendar", "streakCountsConsecutiveDaysIncludingToday") { context in
            let alice = try await context.user("alice")
            for text in ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-08", "2026-03-09", "2026-03-10"] {
                _ = try await alice.sdk.diaries.write(.init(day: day(text), body: "Entry \(text)"))
            }
            let streak = try await alice.sdk.diaries.streak(of: nil)
            try expectEqual(streak.current, 3)
            try expectEqual(streak.longest, 4)
            try expect(streak.includesToday, "today has an entry")
            try expectEqual(streak.lastDay, day("2026-03-10"))
        },
        ConformanceCheck("calendar", "streakStaysAliveUntilTheDayIsOverThenBreaks") { context in
            let alice = try await context.user("alice")
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-08"), body: "a"))
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-09"), body: "b"))
            let alive = try await alice.sdk.diaries.streak(of: nil)
            try expectEqual(alive.current, 2)
            try expect(!alive.includesToday, "today is still empty")
            try await context.setNow(instant("2026-03-11T00:00:01Z"))
            let broken = try await alice.sdk.diaries.streak(of: nil)
            try expectEqual(broken.current, 0)
            try expectEqual(broken.longest, 2)
        },
        ConformanceCheck("calendar", "streakFollowsTheUsersTimeZoneAcrossADaylightSavingChange") { context in
            let alice = try await context.user("alice", timeZone: "America/New_York")
            // 23:30 local on 7, 8 (the day clocks spring forward) and 9 March 2026.
            for utc in ["2026-03-08T04:30:00Z", "2026-03-09T03:30:00Z", "2026-03-10T03:30:00Z"] {
                try await context.setNow(instant(utc))
                _ = try await alice.sdk.diaries.write(.init(body: "Late entry"))
            }
            let days = try await alice.sdk.diaries.entries(.init(), page: .first()).items.map(\.day)
            try expectEqual(days, [day("2026-03-09"), day("2026-03-08"), day("2026-03-07")])
            try await context.setNow(instant("2026-03-10T12:00:00Z"))
            let streak = try await alice.sdk.diaries.streak(of: nil)
            try expectEqual(streak.current, 3)
            try expect(!streak.includesToday, "10 March has no entry yet in New York")
            try await context.setNow(instant("2026-03-11T03:59:00Z"))  // 23:59 on the 10th in New York
            try expectEqual(try await alice.sdk.diaries.streak(of: nil).current, 3)
            try await context.setNow(instant("2026-03-11T04:01:00Z"))  // 00:01 on the 11th
            try expectEqual(try await alice.sdk.diaries.streak(of: nil).current, 0)
        },
        ConformanceCheck("calendar", "anEntrysDayDoesNotMoveWhenReadFromAnotherTimeZone") { context in
            let alice = try await context.user("alice", timeZone: "Asia/Seoul")
            let bob = try await context.user("bob", timeZone: "America/Los_Angeles")
            try await context.setNow(instant("2026-03-10T14:30:00Z"))  // 23:30 in Seoul
            let entry = try await alice.sdk.diaries.write(.init(body: "Seoul night", visibility: .shared))
            try expectEqual(entry.day, day("2026-03-10"))
            try expectEqual(try await bob.sdk.diaries.entry(entry.id).day, day("2026-03-10"))
            let calendar = try await bob.sdk.diaries.calendar(month("2026-03"), of: alice.id)
            try expectEqual(calendar.days.map(\.date), [day("2026-03-10")])
        },
    ]
}
