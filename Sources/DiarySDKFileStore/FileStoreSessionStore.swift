import DiarySDK
import Foundation

/// The file store's default session store: `session.json` in the store's directory, replaced the way the store
/// replaces its own files (temporary file with mode 0600, `fsync`, rename, `fsync` of the directory), so a saved
/// session survives a power loss and an interrupted save leaves only a `.tmp` file that the next open removes.
///
/// The file holds the same JSON as ``FileSessionStore``'s, so either can read what the other wrote.
struct FileStoreSessionStore: SessionStore {
    let path: String
    let io: any FileIO

    /// Reads the file; a missing file means no session.
    /// - Throws: ``DiaryError`` `.storageCorrupted` when the file is not a session, `.unavailable` when it cannot be
    ///   read.
    func load() async throws -> StoredSession? {
        let data: Data?
        do {
            data = try io.readFile(path)
        } catch let error as FileIOError {
            throw error.diaryError
        }
        guard let data else { return nil }
        do {
            return try JSONDecoder.diary().decode(StoredSession.self, from: data)
        } catch {
            throw DiaryError(.storageCorrupted, "session file \(path) is not a session", underlying: error)
        }
    }

    /// Replaces the file durably, or removes it (and makes the removal durable) when `session` is `nil`.
    /// - Throws: ``DiaryError`` `.unavailable` when the file cannot be written or removed.
    func save(_ session: StoredSession?) async throws {
        do {
            guard let session else {
                try io.removeFile(path)
                try io.syncDirectory((path as NSString).deletingLastPathComponent)
                return
            }
            try io.writeAtomically(try JSONEncoder.diary().encode(session), to: path)
        } catch let error as FileIOError {
            throw error.diaryError
        }
    }
}
