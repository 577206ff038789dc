import DiarySDK
import Foundation
import Testing

@testable import DiarySDKFileStore

@Suite("File store session file")
struct SessionFileTests {
    /// `session.json` is kept by a ``FileSessionStore`` (replaced durably, mode 0600); no temporary file is left
    /// behind, nor survives the next open.
    @Test func theSessionFileIsReplacedDurablyAndItsTemporaryFilesAreCleanedUp() async throws {
        let directory = TestDirectory("session")
        defer { directory.remove() }
        let backend = try directory.open(sessionFile: true)
        let user = try await backend.repositories.accounts.signUp(
            SignUpRequest(email: "alice@example.com", password: "correct horse battery", nickname: "alice"))
        let sessionFile = directory.path + "/" + StoreFiles.session
        let attributes = try FileManager.default.attributesOfItem(atPath: sessionFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try directory.names().filter { $0.contains("session") || $0.hasPrefix(".") } == [StoreFiles.session])
        try await backend.close()

        // What an interrupted save of older versions (Foundation's atomic write, the store's own `.tmp`) or of this
        // one leaves behind.
        try Data("{".utf8).write(to: directory.file(".dat.nosync3f2a.Yx81Qz"))
        try Data("{".utf8).write(to: directory.file(StoreFiles.session + ".tmp"))
        try Data("{".utf8).write(to: directory.file(".\(StoreFiles.session).\(UUID().uuidString).tmp"))
        let reopened = try directory.open(sessionFile: true)
        #expect(try directory.names().filter { $0.contains("session") || $0.hasPrefix(".") } == [StoreFiles.session])
        #expect(try await reopened.repositories.accounts.restoreSession()?.id == user.id)
        try await reopened.repositories.accounts.signOut()
        #expect(!FileManager.default.fileExists(atPath: sessionFile))
        try await reopened.close()
    }
}
