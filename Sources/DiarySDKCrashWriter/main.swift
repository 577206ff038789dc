// The file store's crash-test child: opens the store in the directory given as the first argument and writes
// diary entries in a loop, printing `ack <entry id>` after each write has returned (so the write is durable).
// The test kills it with SIGKILL at random moments and checks that every acknowledged entry survived. After each
// acknowledged write it also rewrites one large scratch entry, so the journal outgrows the snapshot and compactions
// run often, and kills land during them too.
//
// Usage: DiarySDKCrashWriter <directory> [minimum-compaction-bytes] [max-writes]
// Prints `ready <user id>` once open, `ack <id>` per write, `open-failed <code> <message>` when the store cannot be
// opened (exit status 2), and `done` after `max-writes` writes and a clean close.
@_spi(Engine) import DiarySDK
@_spi(Engine) import DiarySDKFileStore
import Foundation

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: DiarySDKCrashWriter <directory> [compaction-bytes] [max-writes]\n".utf8))
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
let compactionBytes = arguments.count >= 3 ? Int(arguments[2]) ?? 4 << 20 : 4 << 20
let maximumWrites = arguments.count >= 4 ? Int(arguments[3]) : nil

let backend: FileStoreBackend
do {
    backend = try FileStoreBackend(
        configuration: .init(
            directory: directory, engine: .init(passwordHashIterations: 1_000), minimumCompactionBytes: compactionBytes))
} catch let error as DiaryError {
    emit("open-failed \(error.code) \(error.message)")
    exit(2)
}

let credentials = Credentials.password(email: "writer@example.com", password: "correct horse battery")
let user: User
do {
    user = try await backend.engine(actingAs: nil).authenticate(credentials)
} catch {
    user = try await backend.engine(actingAs: nil).createAccount(
        SignUpRequest(email: "writer@example.com", password: "correct horse battery", nickname: "writer"))
}
emit("ready \(user.id)")

let diaries = backend.repositories(signedInAs: user.id).diaries
let padding = String(repeating: "journal padding ", count: 16)
let scratchBody = String(repeating: "scratch ", count: 1_000)
let scratch = try await diaries.write(DiaryDraft(title: "Scratch", body: scratchBody))
var written = 0
while maximumWrites.map({ written < $0 }) ?? true {
    let entry = try await diaries.write(DiaryDraft(title: "Entry \(written)", body: "Written by the crash writer. \(padding)"))
    emit("ack \(entry.id)")
    written += 1
    _ = try await diaries.edit(scratch.id, DiaryEdit(body: "\(written) \(scratchBody)"))
}
try await backend.close()
emit("done")
