import DiarySDK
import DiarySDKInMemory
import Foundation

/// Where a world keeps its data: anything that hands out the SDK's engine acting as a user.
///
/// The server never applies a rule itself; it asks the backend for an engine bound to the caller and calls the
/// repository method, so the file store, the in-memory store and this server all enforce the same rules.
protocol StorageBackend: Sendable {
    /// The engine acting as `userID`, or signed out for `nil` (sign-up, sign-in, availability checks).
    func engine(actingAs userID: User.ID?) -> DiaryEngine
}

extension InMemoryBackend: StorageBackend {}
