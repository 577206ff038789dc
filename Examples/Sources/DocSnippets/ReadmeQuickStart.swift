// README.md, "Quick start". DocSnippetTests runs it twice on one store.
// snippet.show
import DiarySDK
import DiarySDKFileStore

// snippet.hide
func readmeQuickStart() async throws {
    // snippet.show
    let backend = try FileStoreBackend(configuration: .init(directory: FileStoreBackend.defaultDirectory))
    let sdk = backend.repositories                      // every repository, bundled

    if try await sdk.accounts.restoreSession() == nil { // the session outlives the process: sign up only once
        _ = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
    }
    let entry = try await sdk.diaries.write(DiaryDraft(title: "Day one", body: "Hello, diary", mood: .happy, tags: ["til"]))
    let month = try await sdk.diaries.calendar(entry.day.yearMonth, of: nil)   // days with entries, mood of each
    let streak = try await sdk.diaries.streak(of: nil)                         // current and longest
    print("\(month.days.count) day(s) written this month, streak \(streak.current)")

    _ = try await sdk.posts.share(entry.id, isAnonymous: false)               // to the community
    for try await page in PageSequence(first: .first(size: 20), fetch: sdk.posts.feed) {
        print(page.items.map(\.title))
    }

    do {
        _ = try await sdk.diaries.write(DiaryDraft(body: "   "))
    } catch let error as DiaryError where error.code == .invalidInput {
        print(error.field!, error.reason!)                                     // body, blank
    }
    try await backend.close()
    // snippet.hide
}
