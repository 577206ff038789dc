// docs/REST.md, "The Swift client". Compiled only: it needs a server.
// snippet.show
import DiarySDK
import DiarySDKHTTP

// snippet.hide
import Foundation

func restClient(support: URL, apnsToken: String, email: String, password: String) async throws {
    // snippet.show
    let backend = HTTPBackend(configuration: .init(
        baseURL: URL(string: "https://diary.example.com")!,
        tokenStore: FileSessionStore(fileURL: support.appendingPathComponent("session.json")),
        timeout: 20,
        retry: RetryPolicy(maximumAttempts: 3),
        deviceToken: DeviceToken(token: apnsToken, platform: .apns)))
    let sdk = backend.repositories
    if try await sdk.accounts.restoreSession() == nil {
        _ = try await sdk.accounts.signIn(.password(email: email, password: password))
    }
    // snippet.hide
}
