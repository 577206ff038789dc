// docs/GettingStarted.md. DocSnippetTests runs it twice on one store.
// snippet.show
import DiarySDK
import DiarySDKFileStore

// snippet.hide
func gettingStarted() async throws {
    // snippet.show
    let backend = try FileStoreBackend(configuration: .init(directory: FileStoreBackend.defaultDirectory))
    let sdk = backend.repositories
    if try await sdk.accounts.restoreSession() == nil {
        // In an app these come from the sign-in screen.
        let email = "me@example.com", password = "correct horse"
        if try await sdk.accounts.isEmailAvailable(email) {
            _ = try await sdk.accounts.signUp(.init(email: email, password: password, nickname: "me"))
        } else {
            _ = try await sdk.accounts.signIn(.password(email: email, password: password))
        }
    }
    let page = try await sdk.posts.feed(page: .first(size: 20))
    print("signed in as \(try await sdk.accounts.currentUser()!.nickname); \(page.items.count) posts in the feed")
    try await backend.close()
    // snippet.hide
}
