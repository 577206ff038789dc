// The offline backend's crash-test child: opens an OfflineBackend in the directory given as the first argument
// against the server at the second, restores the session a test stored there, and writes entries in a loop while the
// backend syncs in the background, printing `ack <entry id> <title>` after each write has returned (so the entry and
// its outbox entry are durable on the device). The test kills it with SIGKILL at random moments, during writes and
// during sends, and checks that the server ends up with every acknowledged entry exactly once.
//
// Usage: DiarySDKOfflineCrashWriter <directory> <server-url> <round> [max-writes]
// Prints `ready <user id>` once the session is restored, `ack <id> <title>` per write, `comment <id> <entry id> <body>`
// per comment (on every fifth entry), `failed <code> <message>` when
// it cannot start (exit status 2), and `done` after `max-writes` writes, a sync and a clean close.
import DiarySDK
import DiarySDKHTTP
import DiarySDKOffline
import Foundation

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let serverURL = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: DiarySDKOfflineCrashWriter <directory> <server-url> <round> [max-writes]\n".utf8))
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
let round = arguments[3]
let maximumWrites = arguments.count >= 5 ? Int(arguments[4]) : nil

do {
    var configuration = OfflineBackend.Configuration(
        directory: directory, serverURL: serverURL, retryDelays: 0.02...0.2, refreshInterval: 0.5)
    configuration.server.retry = RetryPolicy(maximumAttempts: 1)
    configuration.server.timeout = 5
    let backend = try OfflineBackend(configuration: configuration)
    guard let user = try await backend.repositories.accounts.restoreSession() else {
        emit("failed unauthenticated no stored session")
        exit(2)
    }
    emit("ready \(user.id)")
    let diaries = backend.repositories.diaries
    var written = 0
    while maximumWrites.map({ written < $0 }) ?? true {
        let title = "r\(round)-\(written)"
        let entry = try await diaries.write(DiaryDraft(title: title, body: "Written by the offline crash writer."))
        emit("ack \(entry.id) \(title)")
        written += 1
        if written % 3 == 0 {
            // Edits and flags go through the outbox too.
            _ = try await diaries.setFavourite(entry.id, true)
        }
        if written % 5 == 0 {
            // So do comments (sent at once while the server answers, else queued behind the entry).
            let comment = try await backend.repositories.comments.addComment(
                CommentDraft(target: .diary(entry.id), body: "c-\(title)"))
            emit("comment \(comment.id) \(entry.id) c-\(title)")
        }
    }
    try? await backend.sync()
    try await backend.close()
    emit("done")
} catch let error as DiaryError {
    emit("failed \(error.code) \(error.message)")
    exit(2)
}
