import DiarySDK
import Foundation

extension ConformanceSuite {
    static let dayAndLikerChecks: [ConformanceCheck] = [
        ConformanceCheck("posts", "aDaysPostsAreTheAuthorsOfThatDayNewestFirstWithoutOthersAnonymousOnes") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let day = LocalDate(year: 2026, month: 3, day: 10)!
            try await context.setNow(instant("2026-03-10T09:00:00Z"))
            let morning = try await alice.sdk.posts.publish(.init(title: "Morning", body: "coffee"))
            try await context.setNow(instant("2026-03-10T18:00:00Z"))
            let hidden = try await alice.sdk.posts.publish(.init(title: "Secret", body: "unnamed", isAnonymous: true))
            try await context.setNow(instant("2026-03-10T18:30:00Z"))
            let evening = try await alice.sdk.posts.publish(.init(title: "Evening", body: "walk"))
            try await context.setNow(instant("2026-03-11T08:00:00Z"))
            _ = try await alice.sdk.posts.publish(.init(title: "Next day", body: "rain"))
            _ = try await bob.sdk.posts.publish(.init(title: "Bob's", body: "also the 11th"))

            try expectEqual(
                try await alice.sdk.posts.posts(by: nil, on: day).map(\.id), [evening.id, hidden.id, morning.id],
                "the author's own day, anonymous posts included")
            let seenByBob = try await bob.sdk.posts.posts(by: alice.id, on: day)
            try expectEqual(seenByBob.map(\.id), [evening.id, morning.id], "someone else's anonymous posts never listed")
            try expect(seenByBob.allSatisfy { $0.author?.id == alice.id && !$0.isMine }, "posts as Bob sees them")
            try expectEqual(try await bob.sdk.posts.posts(by: nil, on: day), [], "Bob wrote nothing that day")
            try expectEqual(try await bob.sdk.posts.posts(by: alice.id, on: LocalDate(year: 2026, month: 2, day: 10)!), [])

            try await alice.sdk.social.block(bob.id)
            try await expectError(.notFound) { try await bob.sdk.posts.posts(by: alice.id, on: day) }
        },
        ConformanceCheck("posts", "aPostsLikersAreNewestFirstWithoutBlockedPeopleOrAnAnonymousAuthor") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let post = try await alice.sdk.posts.publish(.init(title: "Unsigned", body: "who wrote this?", isAnonymous: true))
            _ = try await alice.sdk.posts.like(post.id)
            try await context.setNow(epoch.addingTimeInterval(1))
            _ = try await bob.sdk.posts.like(post.id)
            try await context.setNow(epoch.addingTimeInterval(2))
            _ = try await carol.sdk.posts.like(post.id)

            try expectEqual(
                try await alice.sdk.posts.likers(of: post.id, page: .first()).items.map(\.id), [carol.id, bob.id, alice.id],
                "the author sees every liker, themselves too")
            let seenByBob = try await bob.sdk.posts.likers(of: post.id, page: .first())
            try expectEqual(seenByBob.items.map(\.id), [carol.id, bob.id], "the anonymous author's like would name them")
            try expect(
                seenByBob.items.allSatisfy { ($0.email == nil) == ($0.id != bob.id) }, "other people's profiles are public views")
            let paged = try await alice.sdk.posts.likers(of: post.id, page: .first(size: 2))
            try expectEqual(paged.items.map(\.id), [carol.id, bob.id])
            let rest = try await alice.sdk.posts.likers(of: post.id, page: try requireValue(paged.nextRequest))
            try expectEqual(rest.items.map(\.id), [alice.id])

            try await bob.sdk.social.block(carol.id)
            try expectEqual(try await bob.sdk.posts.likers(of: post.id, page: .first()).items.map(\.id), [bob.id])
            try expectEqual(
                try await carol.sdk.posts.likers(of: post.id, page: .first()).items.map(\.id), [carol.id],
                "a block hides people both ways")
            try await expectError(.notFound) { try await bob.sdk.posts.likers(of: Post.ID(UUID()), page: .first()) }
        },
    ]
}

extension ConformanceSuite {
    static let settingsEditChecks: [ConformanceCheck] = [
        ConformanceCheck("profile", "aSettingsEditChangesOnlyWhatItNamesSoTwoDevicesEditsBothStay") { context in
            let alice = try await context.user("alice")
            let phone = try await context.device()
            _ = try await phone.accounts.signIn(.password(email: "alice@example.com", password: password))
            let reminder = DailyReminder(isEnabled: true, hour: 21, minute: 30)
            // Each device read the settings before either wrote: with whole-value updates the later one would undo
            // the earlier one's change.
            async let fromTablet = alice.sdk.users.editSettings(SettingsEdit(dailyReminder: reminder))
            async let fromPhone = phone.users.editSettings(SettingsEdit(disableNotifications: [.nudge]))
            _ = try await (fromTablet, fromPhone)
            let settings = try requireValue(try await alice.sdk.accounts.currentUser()?.settings)
            try expectEqual(settings.dailyReminder, reminder)
            try expect(!settings.notifications.contains(.nudge), "the phone's change stays")
            try expect(settings.notifications.contains(.commentOnPost), "kinds not named are left as they were")
            let zone = try await alice.sdk.users.editSettings(SettingsEdit(enableNotifications: [.nudge], timeZoneIdentifier: "Asia/Seoul"))
            try expectEqual(zone.settings?.timeZoneIdentifier, "Asia/Seoul")
            try expectEqual(zone.settings?.dailyReminder, reminder)
            try expect(zone.settings?.notifications.contains(.nudge) == true, "turned back on")
            try await expectError(.invalidInput, field: "timeZoneIdentifier") {
                try await alice.sdk.users.editSettings(SettingsEdit(timeZoneIdentifier: "Mars/Olympus"))
            }
            try await expectError(.invalidInput, field: "dailyReminder") {
                try await alice.sdk.users.editSettings(SettingsEdit(dailyReminder: DailyReminder(isEnabled: true, hour: 24, minute: 0)))
            }
            try expectEqual(try await alice.sdk.accounts.currentUser()?.settings, zone.settings, "a refused edit changes nothing")
        },
    ]
}
