import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A session store backed by one JSON file with owner-only permissions (0600), replaced durably.
///
/// A save writes a temporary file with a unique name in the same folder (`.<name>.<UUID>.tmp`, mode 0600), `fsync`s
/// it (`F_FULLFSYNC` on Apple platforms), renames it over the file and `fsync`s the folder, so after a power loss the
/// file holds either the old session or the new one. Saves and loads of one file take an exclusive `flock` on the
/// folder, so concurrent saves (in this process or another) leave one whole session; a load first removes the
/// temporary files that interrupted saves left.
public struct FileSessionStore: SessionStore {
    /// The file.
    public let fileURL: URL

    /// Creates a store at a file path; its folder is created when needed.
    /// - Parameter fileURL: The file.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// Reads the file, after removing temporary files of interrupted saves; a missing file means no session.
    /// - Throws: ``DiaryError`` `.storageCorrupted` when the file is not a session, `.unavailable` when it or its
    ///   folder cannot be read.
    public func load() async throws -> StoredSession? {
        let folder = fileURL.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder) else { return nil }
        let data: Data? = try withFolderLocked(folder) { _ in
            try removeStaleTemporaries(in: folder)
            guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
            do {
                return try Data(contentsOf: fileURL)
            } catch {
                throw DiaryError(.unavailable, "session file \(fileURL.path) could not be read", underlying: error)
            }
        }
        guard let data else { return nil }
        do {
            return try JSONDecoder.diary().decode(StoredSession.self, from: data)
        } catch {
            throw DiaryError(.storageCorrupted, "session file \(fileURL.path) is not a session", underlying: error)
        }
    }

    /// Replaces the file durably, or removes it (and makes the removal durable) when `session` is `nil`.
    /// - Throws: ``DiaryError`` `.unavailable` when the file cannot be written or removed.
    public func save(_ session: StoredSession?) async throws {
        let folder = fileURL.deletingLastPathComponent().path
        let data: Data?
        do {
            data = try session.map { try JSONEncoder.diary().encode($0) }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw DiaryError(.unavailable, "session file \(fileURL.path) could not be saved", underlying: error)
        }
        try withFolderLocked(folder) { folderDescriptor in
            if let data {
                try replace(with: data, in: folder)
            } else if unlink(fileURL.path) != 0, errno != ENOENT {
                throw failure("remove", fileURL.path)
            }
            try sync(folderDescriptor, folder)
        }
    }

    // MARK: - Files

    private var temporaryPrefix: String { "." + fileURL.lastPathComponent + "." }

    private func replace(with data: Data, in folder: String) throws {
        let temporary = folder + "/" + temporaryPrefix + UUID().uuidString + ".tmp"
        let descriptor = retryingInterrupts { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { throw failure("create", temporary) }
        do {
            try writeAll(data, to: descriptor, temporary)
            try sync(descriptor, temporary)
            _ = close(descriptor)
        } catch {
            _ = close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, fileURL.path) == 0 else {
            let error = failure("rename", temporary)
            unlink(temporary)
            throw error
        }
    }

    private func removeStaleTemporaries(in folder: String) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw DiaryError(.unavailable, "the folder \(folder) could not be listed", underlying: error)
        }
        for name in names where name.hasPrefix(temporaryPrefix) && name.hasSuffix(".tmp") {
            let path = folder + "/" + name
            if unlink(path) != 0, errno != ENOENT { throw failure("remove", path) }
        }
    }

    /// Runs `body` holding an exclusive `flock` on the folder (waiting for other saves and loads of it).
    private func withFolderLocked<T>(_ folder: String, _ body: (Int32) throws -> T) throws -> T {
        let descriptor = retryingInterrupts { open(folder, O_RDONLY | O_CLOEXEC | O_DIRECTORY) }
        guard descriptor >= 0 else { throw failure("open", folder) }
        defer { _ = close(descriptor) }
        guard retryingInterrupts({ flock(descriptor, LOCK_EX) }) == 0 else { throw failure("lock", folder) }
        return try body(descriptor)
    }

    private func writeAll(_ data: Data, to descriptor: Int32, _ path: String) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", path)
                }
                offset += written
            }
        }
    }

    private func sync(_ descriptor: Int32, _ path: String) throws {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        guard retryingInterrupts({ fsync(descriptor) }) == 0 else { throw failure("fsync", path) }
    }

    private func failure(_ operation: String, _ path: String) -> DiaryError {
        let code = errno
        return DiaryError(
            .unavailable, "could not \(operation) \(path): \(String(cString: strerror(code))) (errno \(code))")
    }

    private func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
