import DiarySDK
import Foundation

extension ConformanceSuite {
    /// Who an account is: look-alike nicknames, external identities, the device's push token and time zone.
    static let identityChecks: [ConformanceCheck] = [
        ConformanceCheck("accounts", "nicknamesThatOnlyLookDifferentAreTaken") { context in
            _ = try await context.user("alice")
            let sdk = try await context.device()
            // Full-width, Cyrillic `а` and `е`, Greek `Α`: each looks like `alice`.
            for lookalike in ["ａｌｉｃｅ", "\u{430}lice", "alic\u{435}", "\u{391}LICE"] {
                try expect(!(try await sdk.accounts.isNicknameAvailable(lookalike)), "'\(lookalike)' looks like alice")
                try await expectError(.conflict, field: "nickname") {
                    try await sdk.accounts.signUp(
                        .init(email: "mimic@example.com", password: password, nickname: lookalike))
                }
            }
            let bob = try await sdk.accounts.signUp(.init(email: "bob@example.com", password: password, nickname: "ｂｏｂ"))
            try expectEqual(bob.nickname, "bob", "full-width letters are stored as plain letters")
            try await expectError(.conflict, field: "nickname") {
                try await sdk.users.updateProfile(.init(nickname: "\u{430}lice"))
            }
        },
        ConformanceCheck("accounts", "anUnverifiedIdentityEmailNeverJoinsAnExistingAccount") { context in
            let alice = try await context.user("alice")
            let attacker = try await context.device()
            let other = try await attacker.accounts.signIn(
                .identityToken(provider: "apple", token: "test:attacker-1:alice@example.com"))
            try expect(other.id != alice.id, "an unverified email signs in to a new account, not alice's")
            try expect(other.email != "alice@example.com", "the unverified email is not the new account's")
            let owner = try await context.device()
            let linked = try await owner.accounts.signIn(
                .identityToken(provider: "apple", token: "test:alice-1:alice@example.com:verified"))
            try expectEqual(linked.id, alice.id, "a verified email joins the account with that email")
        },
        ConformanceCheck("accounts", "signOutUnregistersThisDevicesPushTokensOnly") { context in
            let alice = try await context.user("alice")
            let phone = DeviceToken(token: "apns-shared-phone", platform: .apns)
            let tablet = DeviceToken(token: "apns-alices-tablet", platform: .apns)
            try await alice.sdk.accounts.registerDeviceToken(phone)
            let second = try await context.device()
            _ = try await second.accounts.signIn(.password(email: "alice@example.com", password: password))
            try await second.accounts.registerDeviceToken(tablet)
            try await alice.sdk.accounts.signOut()
            try expectEqual(
                try await second.accounts.deviceTokens(), [tablet], "the signed-out device's token is gone, not others'")
        },
        ConformanceCheck("accounts", "signUpCountsDaysInTheRequestedTimeZone") { context in
            let sdk = try await context.device()
            let user = try await sdk.accounts.signUp(
                .init(email: "seoul@example.com", password: password, nickname: "seoul", timeZoneIdentifier: "Asia/Seoul"))
            try expectEqual(user.settings?.timeZoneIdentifier, "Asia/Seoul")
            try expectEqual(try await sdk.accounts.currentUser()?.settings?.timeZoneIdentifier, "Asia/Seoul")
            let other = try await context.device()
            try await expectError(.invalidInput, field: "timeZoneIdentifier") {
                try await other.accounts.signUp(
                    .init(email: "nowhere@example.com", password: password, nickname: "nowhere", timeZoneIdentifier: "Mars/Base"))
            }
        },
    ]
}
