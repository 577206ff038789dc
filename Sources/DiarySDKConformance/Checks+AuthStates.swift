import DiarySDK
import Foundation

/// Follows a stream of auth-state changes for a check.
typealias AuthStateRecorder = StreamRecorder<AuthStateChange>

extension StreamRecorder where Element == AuthStateChange {
    /// The first `count` changes, waiting up to five seconds for them (a change reaches the stream before the call
    /// that made it returns, so only the recorder's own task can lag).
    /// - Throws: A failure naming what arrived when fewer came.
    func changes(_ count: Int, file: StaticString = #fileID, line: UInt = #line) async throws -> [AuthStateChange] {
        let deadline = Date().addingTimeInterval(5)
        while events.count < count, Date() < deadline { try await Task.sleep(nanoseconds: 2_000_000) }
        let changes = events
        try expect(
            changes.count == count, "expected \(count) auth-state changes, got \(changes.count): \(changes.map(\.event))",
            file: file, line: line)
        return changes
    }
}

extension ConformanceSuite {
    static let authStateChecks: [ConformanceCheck] = [
        ConformanceCheck("accounts", "authStatesStartWithTheCurrentStateAndFollowEveryChange") { context in
            let sdk = try await context.device()
            let first = AuthStateRecorder(sdk.accounts.authStates())
            try expectEqual(try await first.changes(1), [AuthStateChange(event: .initial, state: .signedOut)])

            let user = try await sdk.accounts.signUp(.init(email: "dana@example.com", password: password, nickname: "dana"))
            try expectEqual(try await first.changes(2).last, AuthStateChange(event: .signedIn, state: .signedIn(user)))

            // A second subscriber starts from the state as it is now; both get what follows.
            let second = AuthStateRecorder(sdk.accounts.authStates())
            try expectEqual(try await second.changes(1), [AuthStateChange(event: .initial, state: .signedIn(user))])
            let edited = try await sdk.users.updateProfile(ProfileEdit(bio: "tea and notebooks"))
            try expectEqual(edited.bio, "tea and notebooks")
            let settled = try await sdk.users.updateSettings(UserSettings(timeZoneIdentifier: "Asia/Seoul"))
            try await sdk.accounts.signOut()
            try await sdk.accounts.signOut()  // signing out twice is harmless, and says nothing the second time
            let again = try await sdk.accounts.signIn(.password(email: "dana@example.com", password: password))
            try await sdk.accounts.withdraw()

            let expected: [AuthStateChange] = [
                .init(event: .profileUpdated, state: .signedIn(edited)),
                .init(event: .profileUpdated, state: .signedIn(settled)),
                .init(event: .signedOut(.userSignedOut), state: .signedOut),
                .init(event: .signedIn, state: .signedIn(again)),
                .init(event: .signedOut(.accountWithdrawn), state: .signedOut),
            ]
            try expectEqual(Array(try await first.changes(7).dropFirst(2)), expected, "the first subscriber")
            try expectEqual(Array(try await second.changes(6).dropFirst()), expected, "the second subscriber")
        },
        ConformanceCheck("accounts", "authStatesOfOneDeviceIgnoreOtherDevicesAndFailedSignIns") { context in
            let alice = try await context.user("alice")
            let sdk = try await context.device()
            let recorder = AuthStateRecorder(sdk.accounts.authStates())
            _ = try await expectError(.unauthenticated) {
                try await sdk.accounts.signIn(.password(email: "alice@example.com", password: "wrong password"))
            }
            // Another device's session and edits are its own.
            _ = try await alice.sdk.users.updateProfile(ProfileEdit(bio: "elsewhere"))
            try await alice.sdk.accounts.signOut()
            let user = try await sdk.accounts.signIn(.password(email: "alice@example.com", password: password))
            try expectEqual(
                try await recorder.changes(2),
                [AuthStateChange(event: .initial, state: .signedOut), AuthStateChange(event: .signedIn, state: .signedIn(user))])
        },
    ]
}
