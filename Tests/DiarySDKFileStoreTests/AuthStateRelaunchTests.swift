import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

/// The auth state of an app on the file store across a relaunch: the session file brings the user back, and the
/// stream says so.
@Suite("File store auth states across a relaunch")
struct AuthStateRelaunchTests {
    private func changes(of sdk: DiaryRepositories, count: Int) async -> [AuthStateChange] {
        var seen: [AuthStateChange] = []
        // A change is in the stream before the call that made it returns, so these are all there already.
        for await change in sdk.accounts.authStates() {
            seen.append(change)
            if seen.count == count { break }
        }
        return seen
    }

    @Test(.timeLimit(.minutes(1))) func aRelaunchRestoresTheSessionAndTheStreamSaysWhoIsSignedIn() async throws {
        let directory = TestDirectory("auth-relaunch")
        defer { directory.remove() }
        let first = try directory.open(sessionFile: true)
        let user = try await first.repositories.accounts.signUp(
            .init(email: "mina@example.com", password: "correct horse battery", nickname: "mina"))
        try await first.close()

        let relaunched = try directory.open(sessionFile: true)
        let stream = relaunched.repositories.accounts.authStates()
        #expect(try await relaunched.repositories.accounts.restoreSession() == user)
        var seen: [AuthStateChange] = []
        for await change in stream {
            seen.append(change)
            if seen.count == 2 { break }
        }
        #expect(seen == [.init(event: .initial, state: .signedOut), .init(event: .signedIn, state: .signedIn(user))])
        #expect(await changes(of: relaunched.repositories, count: 1) == [.init(event: .initial, state: .signedIn(user))])

        // Signing out ends the stored session too: the next launch starts signed out, and restoring says nothing.
        try await relaunched.repositories.accounts.signOut()
        try await relaunched.close()
        let third = try directory.open(sessionFile: true)
        #expect(try await third.repositories.accounts.restoreSession() == nil)
        #expect(await changes(of: third.repositories, count: 1) == [.init(event: .initial, state: .signedOut)])
        try await third.close()
    }
}
