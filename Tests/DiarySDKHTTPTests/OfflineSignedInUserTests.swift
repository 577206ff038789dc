import DiarySDK
import DiarySDKHTTP
import DiarySDKOffline
import Foundation
import Testing

/// The offline repositories act as the user the sync runs for (kept in memory, not read from the session store on
/// every call): that user must follow sign-out and a sign-in as someone else on the same device.
@Suite("Offline backend: who the local repositories act as")
struct OfflineSignedInUserTests {
    @Test func theLocalEntriesFollowSignOutAndASignInAsAnotherUser() async throws {
        let server = try await OfflineBackendTests.RestartableServer()
        let (backend, _) = try OfflineBackendTests.device(server, "switch")
        let sdk = backend.repositories
        _ = try await OfflineBackendTests.signUp(backend, "first")
        let mine = try await sdk.diaries.write(DiaryDraft(title: "First's", body: "Written before signing out."))
        #expect(try await sdk.diaries.entries(DiaryQuery(), page: .first()).items.map(\.id) == [mine.id])

        try await sdk.accounts.signOut()
        let error = await #expect(throws: DiaryError.self) {
            _ = try await sdk.diaries.entries(DiaryQuery(), page: .first())
        }
        #expect(error?.code == .unauthenticated)

        let second = try await OfflineBackendTests.signUp(backend, "second")
        #expect(try await sdk.diaries.entries(DiaryQuery(), page: .first()).items.isEmpty)
        let theirs = try await sdk.diaries.write(DiaryDraft(title: "Second's", body: "Another user on the device."))
        #expect(theirs.authorID == second.id)
        #expect(try await sdk.diaries.entries(DiaryQuery(), page: .first()).items.map(\.id) == [theirs.id])
        try await backend.close()
        try await server.stop()
    }
}
