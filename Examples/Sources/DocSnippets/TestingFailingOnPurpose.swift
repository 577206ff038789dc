// docs/Testing.md, "Failing on purpose". DocSnippetTests runs it.
import DiarySDK
import DiarySDKInMemory

func testingFailingOnPurpose() async throws {
    let backend = InMemoryBackend()
    let sdk = backend.repositories
    _ = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
    // snippet.show
    backend.failNext(with: DiaryError(.unavailable, "offline"), matching: "diaries.write")   // the next write fails
    backend.failNext(3, with: DiaryError(.server, "boom"))                                    // any next 3 calls
    backend.failAlways(matching: "posts.", with: DiaryError(.rateLimited, "slow down", retryAfter: 30))
    backend.clearFaults()
    backend.setLatency(0.2)                                                                    // loading states, double taps
    // snippet.hide
    backend.setLatency(0)
    backend.failNext(with: DiaryError(.unavailable, "offline"), matching: "diaries.write")
    do {
        _ = try await sdk.diaries.write(DiaryDraft(body: "Hello"))
    } catch let error as DiaryError {
        print("first write: \(error.code)")
    }
    _ = try await sdk.diaries.write(DiaryDraft(body: "Hello"))
    print("second write: saved; entries: \(try await backend.contents.diaries.count)")
}
