// Offline first: entries written with or without the server, kept on the device and sent when it can be reached.
//
// Run it against a local reference server, then again with the server stopped, then once more after starting it:
//
//     swift run --package-path Examples/DiaryServer DiaryServer --hostname 127.0.0.1 --port 8080 \
//         --data-dir /tmp/diary-server &
//
// (Without `DIARY_JWT_SECRET_FILE` the server signs with a key of its own per process, so a restarted server asks
// the device to sign in again; docs/Deploying.md shows how to keep one secret.)
//     swift run --package-path Examples OfflineDiary http://127.0.0.1:8080 /tmp/offline-diary
//
// Each run writes one entry (durable on the device at once) and a comment on it, tries to sync, and prints what waits
// to be sent.
import DiarySDK
import DiarySDKOffline
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2, let serverURL = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: OfflineDiary <server-url> [directory]\n".utf8))
    exit(64)
}
let directory = arguments.count >= 3
    ? URL(fileURLWithPath: arguments[2], isDirectory: true) : OfflineBackend.defaultDirectory
var configuration = OfflineBackend.Configuration(directory: directory, serverURL: serverURL)
configuration.server.timeout = 5
let backend = try OfflineBackend(configuration: configuration)
let sdk = backend.repositories

if try await sdk.accounts.restoreSession() == nil {
    // The first run needs the server: an account is made there.
    let request = SignUpRequest(email: "offline-demo@example.com", password: "offline demo password", nickname: "offline_demo")
    do {
        _ = try await sdk.accounts.signUp(request)
    } catch let error as DiaryError where error.code == .conflict {
        _ = try await sdk.accounts.signIn(.password(email: request.email, password: request.password))
    }
}

let entry = try await sdk.diaries.write(DiaryDraft(title: "Run at \(Date())", body: "Written on the device."))
print("wrote \(entry.id) (on the device; \(await backend.syncState.pendingWrites) waiting)")
// A comment is the server's to keep: sent at once when it can be reached, else queued behind the entry it is on.
let note = try await sdk.comments.addComment(CommentDraft(target: .diary(entry.id), body: "A note on it."))
print("commented \(note.id) (\(await backend.syncState.pendingWrites) waiting)")
do {
    try await backend.sync()
    print("synced: nothing waits")
} catch let error as DiaryError {
    print("the server could not be reached (\(error.code)): \(await backend.syncState.pendingWrites) waiting to sync")
}
let mine = try await sdk.diaries.entries(DiaryQuery(), page: .first(size: 100))
print("\(mine.items.count) entries on the device")
try await backend.close()
