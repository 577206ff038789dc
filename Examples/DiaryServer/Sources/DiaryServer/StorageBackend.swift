@_spi(Engine) import DiarySDK
@_spi(Engine) import DiarySDKInMemory
import Foundation

/// Where a world keeps its data: anything that hands out the SDK's engine acting as a user.
///
/// The server never applies a rule itself; it asks the backend for an engine bound to the caller and calls the
/// repository method, so the file store, the in-memory store, PostgreSQL and this server all enforce the same rules.
protocol StorageBackend: Sendable {
    /// The engine acting as `userID`, or signed out for `nil` (sign-up, sign-in, availability checks).
    func engine(actingAs userID: User.ID?) -> DiaryEngine

    /// Throws when the storage cannot answer a read now (`GET /ready`).
    func checkReady() async throws

    /// Releases the storage (its connections) when its world goes away or the server stops.
    /// - Parameter deletingData: Whether the world's data goes too (a test world being removed).
    func close(deletingData: Bool) async
}

// MARK: - Default implementations

extension StorageBackend {
    /// Local stores are ready once open: opening them read and checked their data.
    func checkReady() async throws {}

    func close(deletingData: Bool) async {}
}

extension InMemoryBackend: StorageBackend {}
