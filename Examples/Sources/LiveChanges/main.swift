// Following live changes: a screen subscribes to `changes()` and reloads when something it may see changes. Changes
// it may not see (another user's private entry) never arrive.
import DiarySDK
import DiarySDKInMemory
import Foundation

let backend = InMemoryBackend()
let (reader, writer) = backend.seed { fixtures in (fixtures.user("reader"), fixtures.user("writer")) }
let readerSDK = backend.repositories(signedInAs: reader.id)
let writerSDK = backend.repositories(signedInAs: writer.id)

let stream = readerSDK.changes.changes()
let listener = Task {
    var seen: [DiaryChange] = []
    for await event in stream {
        guard let change = event.change else { continue }
        print("reader sees: \(change.entity) \(change.kind)")
        seen.append(change)
        if seen.filter({ $0.entity == .post }).count == 2 { break }
    }
    return seen
}

try await Task.sleep(nanoseconds: 50_000_000)
let privateEntry = try await writerSDK.diaries.write(DiaryDraft(body: "Only mine"))
print("writer wrote a private entry (\(privateEntry.id.description.prefix(8))…)")
let post = try await writerSDK.posts.publish(PostDraft(title: "Hello", body: "Public"))
print("writer published a post")
_ = try await writerSDK.posts.edit(post.id, PostEdit(body: "Public, edited"))
print("writer edited the post")

let seen = await listener.value
print("reader received \(seen.count) changes, \(seen.filter { $0.entity == .diary }.count) about private entries")
