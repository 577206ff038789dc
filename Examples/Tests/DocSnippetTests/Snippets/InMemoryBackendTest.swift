// The doc comment of InMemoryBackend: a view model's test on the fake (ComposeViewModel is in SnippetSupport.swift).
import DiarySDK
import DiarySDKInMemory
import Testing

// snippet.show
@Test func showsAnErrorWhenSavingFails() async throws {
    let backend = InMemoryBackend(configuration: .init(clock: ManualClock(), ids: SequentialIDGenerator()))
    let alice = backend.seed { $0.user("alice") }
    let model = ComposeViewModel(diaries: backend.repositories(signedInAs: alice.id).diaries)

    backend.failNext(with: DiaryError(.unavailable, "offline"), matching: "diaries.write")
    await model.save(text: "Hello")

    #expect(model.errorMessage == "offline")
    #expect(try await backend.contents.diaries.isEmpty)
}
