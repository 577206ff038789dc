// docs/ChoosingABackend.md. DocSnippetTests runs it on the in-memory and the file backend.
import DiarySDK
import DiarySDKFileStore
import DiarySDKHTTP
import DiarySDKInMemory
import Foundation

enum Choice {
    case memory
    case files(URL)
    case server(URL)
}

// snippet.show
func makeRepositories(_ choice: Choice) throws -> DiaryRepositories {
    switch choice {
    case .memory: InMemoryBackend().repositories
    case .files(let directory): try FileStoreBackend(configuration: .init(directory: directory)).repositories
    case .server(let url): HTTPBackend(configuration: .init(baseURL: url)).repositories
    }
}
// snippet.hide

func choosingABackend(_ choice: Choice) async throws {
    let sdk = try makeRepositories(choice)
    if try await sdk.accounts.restoreSession() == nil {
        _ = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
    }
    _ = try await sdk.diaries.write(DiaryDraft(body: "Hello"))
    print("streak: \(try await sdk.diaries.streak(of: nil).current)")
}
