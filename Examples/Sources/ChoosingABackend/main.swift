// Choosing a backend at run time: the same code runs on memory or on files (or on a server with `server URL`),
// because the app only sees the repository protocols.
import DiarySDK
import DiarySDKFileStore
import DiarySDKInMemory
import Foundation

enum Choice {
    case memory
    case files(URL)
}

func makeRepositories(_ choice: Choice) throws -> DiaryRepositories {
    switch choice {
    case .memory:
        return InMemoryBackend().repositories
    case .files(let directory):
        return try FileStoreBackend(configuration: .init(directory: directory, engine: .init(passwordHashIterations: 10_000))).repositories
    }
}

/// The app's code: it neither knows nor cares which backend it got.
func tour(_ sdk: DiaryRepositories) async throws -> String {
    _ = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
    let entry = try await sdk.diaries.write(DiaryDraft(body: "Same everywhere", mood: .calm))
    let post = try await sdk.posts.share(entry.id, isAnonymous: true)
    let feed = try await sdk.posts.feed(page: .first())
    return "entries: \(try await sdk.diaries.entries(DiaryQuery(), page: .first()).items.count), "
        + "feed: \(feed.items.count), anonymous to others: \(post.isAnonymous)"
}

let argument = CommandLine.arguments.dropFirst().first ?? "memory"
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("choosing-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }
for choice in argument == "both" ? [Choice.memory, .files(directory)] : [argument == "files" ? .files(directory) : .memory] {
    let name = if case .memory = choice { "memory" } else { "files" }
    print("\(name): \(try await tour(try makeRepositories(choice)))")
}
