import DiarySDK
import Foundation

extension ConformanceSuite {
    static let accountChecks: [ConformanceCheck] = [
        ConformanceCheck("accounts", "signUpSignsInAndShowsOwnEmailAndSettings") { context in
            let alice = try await context.user("alice")
            try expectEqual(alice.user.email, "alice@example.com")
            try expect(alice.user.settings != nil, "own settings are visible")
            let current = try await alice.sdk.accounts.currentUser()
            try expectEqual(current?.id, alice.id)
        },
        ConformanceCheck("accounts", "signUpRejectsMalformedFieldsNamingTheField") { context in
            let sdk = try await context.device()
            for email in ["", "   ", "no-at-sign", "a@b", "a@@b.com", "a b@c.com", "@example.com"] {
                try await expectError(.invalidInput, field: "email") {
                    try await sdk.accounts.signUp(.init(email: email, password: password, nickname: "valid"))
                }
            }
            try await expectError(.invalidInput, field: "password") {
                try await sdk.accounts.signUp(.init(email: "a@example.com", password: "short", nickname: "valid"))
            }
            for nickname in ["", "   ", "a", "has space", "semi;colon", String(repeating: "n", count: 21), ".dot"] {
                try await expectError(.invalidInput, field: "nickname") {
                    try await sdk.accounts.signUp(.init(email: "a@example.com", password: password, nickname: nickname))
                }
            }
            try await expectError(.unauthenticated) { try await sdk.diaries.entries(.init(), page: .first()) }
        },
        ConformanceCheck("accounts", "takenEmailOrNicknameIsAConflict") { context in
            _ = try await context.user("alice")
            let sdk = try await context.device()
            try await expectError(.conflict, field: "email") {
                try await sdk.accounts.signUp(.init(email: "ALICE@example.com", password: password, nickname: "other"))
            }
            try await expectError(.conflict, field: "nickname") {
                try await sdk.accounts.signUp(.init(email: "new@example.com", password: password, nickname: "ALICE"))
            }
        },
        ConformanceCheck("accounts", "wrongCredentialsAreUnauthenticatedWithoutSayingWhichPart") { context in
            _ = try await context.user("alice")
            let sdk = try await context.device()
            let wrongPassword = try await expectError(.unauthenticated) {
                try await sdk.accounts.signIn(.password(email: "alice@example.com", password: "wrong password"))
            }
            let unknownEmail = try await expectError(.unauthenticated) {
                try await sdk.accounts.signIn(.password(email: "nobody@example.com", password: password))
            }
            try expectEqual(wrongPassword.message, unknownEmail.message)
            try expect(!wrongPassword.message.contains(password), "the message never echoes a password")
            try expectEqual(try await sdk.accounts.currentUser(), nil)
        },
        ConformanceCheck("accounts", "signInOnASecondDeviceActsAsTheSameUser") { context in
            let alice = try await context.user("alice")
            let entry = try await alice.sdk.diaries.write(.init(body: "private thought"))
            let second = try await context.device()
            let user = try await second.accounts.signIn(.password(email: " Alice@Example.com ", password: password))
            try expectEqual(user.id, alice.id)
            try expectEqual(try await second.diaries.entry(entry.id).body, "private thought")
        },
        ConformanceCheck("accounts", "signOutEndsTheSessionAndRestoreFindsNothing") { context in
            let alice = try await context.user("alice")
            try await alice.sdk.accounts.signOut()
            try expectEqual(try await alice.sdk.accounts.currentUser(), nil)
            try await expectError(.unauthenticated) { try await alice.sdk.posts.feed(page: .first()) }
            try expectEqual(try await alice.sdk.accounts.restoreSession(), nil)
            try await alice.sdk.accounts.signOut()
        },
        ConformanceCheck("accounts", "restoreSessionSignsTheStoredSessionInAgain") { context in
            let alice = try await context.user("alice")
            let restored = try await alice.sdk.accounts.restoreSession()
            try expectEqual(restored?.id, alice.id)
            try expectEqual(try await alice.sdk.accounts.currentUser()?.id, alice.id)
        },
        ConformanceCheck("accounts", "nicknameAndEmailAvailabilityReflectExistingAccounts") { context in
            let alice = try await context.user("alice")
            try expect(!(try await alice.sdk.accounts.isNicknameAvailable("Alice")), "taken nickname, any case")
            try expect(try await alice.sdk.accounts.isNicknameAvailable("bob"), "free nickname")
            try expect(!(try await alice.sdk.accounts.isEmailAvailable("alice@example.com")), "taken email")
            try expect(try await alice.sdk.accounts.isEmailAvailable("bob@example.com"), "free email")
            try await expectError(.invalidInput, field: "email") { try await alice.sdk.accounts.isEmailAvailable("nope") }
        },
        ConformanceCheck("accounts", "withdrawDeletesTheAccountAndEverythingItWrote") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "Bye", body: "Leaving soon"))
            let bobsPost = try await bob.sdk.posts.publish(.init(title: "Hi", body: "Staying"))
            _ = try await alice.sdk.comments.addComment(.init(target: .post(bobsPost.id), body: "see you"))
            _ = try await alice.sdk.posts.like(bobsPost.id)
            try await alice.sdk.social.follow(bob.id)
            try await alice.sdk.accounts.withdraw()
            try expectEqual(try await alice.sdk.accounts.currentUser(), nil)
            try await expectError(.notFound) { try await bob.sdk.posts.post(post.id) }
            try await expectError(.notFound) { try await bob.sdk.users.user(alice.id) }
            let bobsView = try await bob.sdk.posts.post(bobsPost.id)
            try expectEqual(bobsView.likeCount, 0)
            try expectEqual(bobsView.commentCount, 0)
            try expectEqual(try await bob.sdk.social.followers(of: bob.id, page: .first()).items.count, 0)
            let again = try await context.device()
            try await expectError(.unauthenticated) {
                try await again.accounts.signIn(.password(email: "alice@example.com", password: password))
            }
            try expect(try await again.accounts.isEmailAvailable("alice@example.com"), "the email is free again")
        },
        ConformanceCheck("accounts", "deviceTokenRegistrationKeepsOneRowPerToken") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let token = DeviceToken(token: "apns-token-1", platform: .apns)
            try await alice.sdk.accounts.registerDeviceToken(token)
            try await alice.sdk.accounts.registerDeviceToken(token)
            try expectEqual(try await alice.sdk.accounts.deviceTokens(), [token])
            try await bob.sdk.accounts.registerDeviceToken(token)
            try expectEqual(try await alice.sdk.accounts.deviceTokens(), [], "a token moves to whoever registers it last")
            try expectEqual(try await bob.sdk.accounts.deviceTokens(), [token])
            try await expectError(.invalidInput, field: "token") {
                try await bob.sdk.accounts.registerDeviceToken(.init(token: "  ", platform: .fcm))
            }
        },
    ]

    static let profileChecks: [ConformanceCheck] = [
        ConformanceCheck("profiles", "otherUsersSeeThePublicProfileOnly") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let seen = try await bob.sdk.users.user(alice.id)
            try expectEqual(seen.nickname, "alice")
            try expectEqual(seen.email, nil, "email is visible to its owner only")
            try expectEqual(seen.settings, nil, "settings are visible to their owner only")
            try expectEqual(try await alice.sdk.users.user(alice.id).email, "alice@example.com")
            try await expectError(.notFound) { try await bob.sdk.users.user(User.ID(UUID())) }
        },
        ConformanceCheck("profiles", "profileEditValidatesAndKeepsNicknamesUnique") { context in
            let alice = try await context.user("alice")
            _ = try await context.user("bob")
            let edited = try await alice.sdk.users.updateProfile(.init(nickname: "alice_k", bio: "  TIL every day  "))
            try expectEqual(edited.nickname, "alice_k")
            try expectEqual(edited.bio, "TIL every day")
            try await expectError(.conflict, field: "nickname") { try await alice.sdk.users.updateProfile(.init(nickname: "BOB")) }
            try await expectError(.invalidInput, field: "bio") {
                try await alice.sdk.users.updateProfile(.init(bio: String(repeating: "x", count: Validation.maximumBioLength + 1)))
            }
            try expectEqual(try await alice.sdk.users.user(alice.id).nickname, "alice_k", "failed edits change nothing")
        },
        ConformanceCheck("profiles", "settingsRejectUnknownTimeZonesAndBadReminderTimes") { context in
            let alice = try await context.user("alice")
            var settings = UserSettings(dailyReminder: .init(isEnabled: true, hour: 22, minute: 30))
            settings.notifications = [.nudge]
            settings.timeZoneIdentifier = "Asia/Seoul"
            let updated = try await alice.sdk.users.updateSettings(settings)
            try expectEqual(updated.settings, settings)
            settings.timeZoneIdentifier = "Mars/Olympus"
            try await expectError(.invalidInput, field: "timeZoneIdentifier") { try await alice.sdk.users.updateSettings(settings) }
            settings.timeZoneIdentifier = nil
            settings.dailyReminder.hour = 24
            try await expectError(.invalidInput, field: "dailyReminder") { try await alice.sdk.users.updateSettings(settings) }
        },
        ConformanceCheck("profiles", "userSearchMatchesPartOfANicknameInAnyCase") { context in
            let alice = try await context.user("alice")
            _ = try await context.user("bob")
            _ = try await context.user("Bobby")
            let found = try await alice.sdk.users.searchUsers("BOB", page: .first()).items.map(\.nickname)
            try expectEqual(Set(found), ["bob", "Bobby"])
            try await expectError(.invalidInput, field: "text") { try await alice.sdk.users.searchUsers("  ", page: .first()) }
        },
    ]
}
