// Paging through a community feed both ways the seed apps do: cursor paging with an AsyncSequence (Ghost's infinite
// scroll, resumable from a saved cursor) and numbered pages that know the last page (Monday Sally).
import DiarySDK
import DiarySDKInMemory
import Foundation

let clock = ManualClock(ISO8601DateFormatter().date(from: "2026-03-01T09:00:00Z")!)
let backend = InMemoryBackend(configuration: .init(clock: clock))
let author = backend.seed { fixtures in
    let author = fixtures.user("sally")
    for index in 1...23 {
        fixtures.post(by: author, title: "Post \(index)", at: ISO8601DateFormatter().date(from: "2026-03-01T09:00:00Z")!.addingTimeInterval(Double(index) * 60))
    }
    return author
}
let sdk = backend.repositories(signedInAs: author.id)

print("Cursor paging, 10 a page:")
var savedCursor: PageCursor?
for try await page in PageSequence(first: .first(size: 10), fetch: { try await sdk.posts.feed(page: $0) }) {
    print("  \(page.items.first!.title) … \(page.items.last!.title)\(page.isLastPage ? " (last)" : "")")
    if savedCursor == nil { savedCursor = page.nextCursor }
}

// A new post arrives while the user is reading: resuming from the saved cursor neither repeats nor skips.
_ = try await sdk.posts.publish(PostDraft(title: "Breaking news", body: "Arrived while scrolling"))
let encoded = try JSONEncoder().encode(savedCursor)
let resumed = try await sdk.posts.feed(page: .after(try JSONDecoder().decode(PageCursor.self, from: encoded), size: 10))
print("Resumed after a saved cursor: \(resumed.items.first!.title) … \(resumed.items.last!.title)")

print("Numbered pages, 10 a page:")
var number = 1
while true {
    let page = try await sdk.posts.feed(page: .number(number, size: 10))
    print("  page \(number) of \(page.totalPages!): \(page.items.count) posts\(page.isLastPage ? " (last page)" : "")")
    if page.isLastPage { break }
    number += 1
}

var count = 0
for try await _ in PageSequence(first: .first(size: 7), fetch: { try await sdk.posts.feed(page: $0) }).items { count += 1 }
print("Every post, one at a time: \(count)")
