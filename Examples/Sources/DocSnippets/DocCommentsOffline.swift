// The examples in the doc comments of DiarySDKOffline and of HTTPBackend.withIdempotencyKey.
import DiarySDK
import DiarySDKHTTP
import DiarySDKOffline
import Foundation

// snippet.begin: Sources/DiarySDKOffline/OfflineBackend.swift
func offlineBackendDocCommentExample() async throws {
    // snippet.show
    let backend = try OfflineBackend(configuration: .init(
        directory: OfflineBackend.defaultDirectory, serverURL: URL(string: "https://diary.example.com")!))
    let sdk = backend.repositories
    let entry = try await sdk.diaries.write(DiaryDraft(title: "Subway", body: "Written offline."))
    for await state in backend.syncStates() {
        print("\(state.pendingWrites) waiting to sync")
    }
    // snippet.hide
    _ = entry
}

/// A write kept in an app's own outbox.
struct QueuedWrite {
    var key: String
    var draft: DiaryDraft
}

// snippet.begin: Sources/DiarySDKHTTP/HTTPBackend+IdempotencyKey.swift
func withIdempotencyKeyExample(backend: HTTPBackend, queued: QueuedWrite) async throws {
    // snippet.show
    let entry = try await HTTPBackend.withIdempotencyKey(queued.key) {
        try await backend.repositories.diaries.write(queued.draft)
    }
    // snippet.hide
    _ = entry
}
