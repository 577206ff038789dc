// docs/LiveUpdates.md.
import DiarySDK

// snippet.show
@MainActor final class SessionModel {
    private(set) var user: User?
    private(set) var mustSignInAgain = false

    func follow(_ sdk: DiaryRepositories) async {
        for await change in sdk.accounts.authStates() {
            user = change.state.user
            mustSignInAgain = change.event == .signedOut(.sessionExpired)
        }
    }
}
// snippet.hide
