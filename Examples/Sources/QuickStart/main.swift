// The README's quick start as a program: a file store in a temporary folder, an account, an entry, the calendar,
// the streak, a post, the feed, and a typed error.
import DiarySDK
import DiarySDKFileStore
import Foundation

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quickstart-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }

let backend = try FileStoreBackend(
    configuration: .init(directory: directory, engine: .init(passwordHashIterations: 10_000)))
let sdk = backend.repositories

let me = try await sdk.accounts.signUp(.init(email: "me@example.com", password: "correct horse", nickname: "me"))
print("signed up as \(me.nickname)")

let entry = try await sdk.diaries.write(DiaryDraft(title: "Day one", body: "Hello, diary", mood: .happy, tags: ["til"]))
print("wrote “\(entry.title)” on \(entry.day)")

let calendar = try await sdk.diaries.calendar(entry.day.yearMonth, of: nil)
print("calendar \(calendar.month): \(calendar.days.map { "\($0.date.day)\($0.mood?.rawValue ?? "")" }.joined(separator: " "))")

let streak = try await sdk.diaries.streak(of: nil)
print("streak: \(streak.current) day, longest \(streak.longest)")

let post = try await sdk.posts.share(entry.id, isAnonymous: false)
print("shared as post “\(post.title)”")

for try await page in PageSequence(first: .first(size: 20), fetch: { try await sdk.posts.feed(page: $0) }) {
    print("feed page: \(page.items.map(\.title))")
}

do {
    _ = try await sdk.diaries.write(DiaryDraft(body: "   "))
} catch let error as DiaryError where error.code == .invalidInput {
    print("refused: \(error.field ?? "") is \(error.reason?.rawValue ?? "")")
}
try await backend.close()
