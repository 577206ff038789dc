// Runs one documentation snippet by name, so DocSnippetTests can run the guides' end-to-end code as its own process
// (with its own XDG_DATA_HOME, so `FileStoreBackend.defaultDirectory` is a folder of the test's).
import Foundation

let snippets: [String: () async throws -> Void] = [
    "readme-quick-start": readmeQuickStart,
    "getting-started": gettingStarted,
    "choosing-a-backend-memory": { try await choosingABackend(.memory) },
    "choosing-a-backend-files": {
        try await choosingABackend(.files(URL(fileURLWithPath: CommandLine.arguments[2], isDirectory: true)))
    },
    "testing-deterministic-world": testingDeterministicWorld,
    "testing-failing-on-purpose": testingFailingOnPurpose,
    "file-store-backend": fileStoreBackendExample,
]

guard CommandLine.arguments.count >= 2, let snippet = snippets[CommandLine.arguments[1]] else {
    FileHandle.standardError.write(Data("usage: DocSnippets \(snippets.keys.sorted().joined(separator: "|"))\n".utf8))
    exit(64)
}
try await snippet()
