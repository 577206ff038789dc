import DiarySDK
import Foundation
import Testing

private func session(_ index: Int) -> StoredSession {
    StoredSession(userID: User.ID(UUID()), accessToken: "token-\(index)", refreshToken: "refresh-\(index)")
}

/// The core's ``FileSessionStore``, the store the HTTP backend's docs recommend and the file store's default.
@Suite("FileSessionStore")
struct FileSessionStoreTests {
    /// A save interrupted before its rename leaves its uniquely named temporary file; the next load removes it.
    @Test func anInterruptedSavesTemporaryFileIsRemovedOnLoad() async throws {
        let directory = TestDirectory("session-store")
        defer { directory.remove() }
        let store = FileSessionStore(fileURL: directory.file("session.json"))
        let saved = session(1)
        try await store.save(saved)
        try Data("{".utf8).write(to: directory.file(".session.json.\(UUID().uuidString).tmp"))

        #expect(try await store.load() == saved)
        #expect(try directory.names() == ["session.json"])
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.file("session.json").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    /// A save that cannot replace the file throws a `DiaryError` and leaves no temporary file behind.
    @Test func aFailedSaveLeavesNoTemporaryFile() async throws {
        let directory = TestDirectory("session-store-fail")
        defer { directory.remove() }
        // The target is a directory that is not empty, so the rename over it fails.
        try FileManager.default.createDirectory(at: directory.file("session.json"), withIntermediateDirectories: true)
        try Data().write(to: directory.file("session.json/keep"))
        let store = FileSessionStore(fileURL: directory.file("session.json"))

        await #expect(throws: DiaryError.self) { try await store.save(session(1)) }
        #expect(try directory.names() == ["session.json"])
    }

    /// Many saves at once (two devices of one app, or a refresh racing a sign-out) leave one whole session, one of
    /// those saved, and no temporary file.
    @Test func concurrentSavesLeaveOneValidSession() async throws {
        let directory = TestDirectory("session-store-race")
        defer { directory.remove() }
        let store = FileSessionStore(fileURL: directory.file("nested/session.json"))
        let sessions = (0..<32).map(session)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for saved in sessions {
                group.addTask { try await store.save(saved) }
                group.addTask { _ = try await store.load() }
            }
            try await group.waitForAll()
        }
        let loaded = try #require(try await store.load())
        #expect(sessions.contains(loaded))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("nested").path) == ["session.json"])

        try await store.save(nil)
        #expect(try await store.load() == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("nested").path).isEmpty)
    }
}
