// The example in PostgresDiaryStorage's doc comment, with the imports it shows (compiled only: it connects to the
// address it names; the other examples of DiaryPostgres's doc comments run in DocCommentSnippets.swift).
// snippet.show
@_spi(Storage) import DiaryPostgres
@_spi(Engine) @_spi(Storage) import DiarySDK

// snippet.hide
func postgresDiaryStorageExample(userID: User.ID) async throws -> Page<Post> {
    // snippet.show
    let storage = try await PostgresDiaryStorage.connect(
        configuration: try .init(url: "postgres://diary@127.0.0.1:5432/diary", schema: "diary"))
    let engine = DiaryEngine(storage: storage, actingAs: userID)   // one per request, as a server does
    let feed = try await engine.repositories.posts.feed(page: .first())
    // …
    await storage.shutdown()
    // snippet.hide
    return feed
}
