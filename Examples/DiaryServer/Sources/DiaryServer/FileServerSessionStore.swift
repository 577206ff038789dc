import DiarySDK
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sessions in a JSON file in the data directory (`server-sessions.json`), so they outlive a restart of the one
/// process that uses the directory.
///
/// Every change writes the whole file: to a temporary file beside it, flushed to disk, then renamed over the old
/// one, so a crash leaves either the old sessions or the new ones. A file that cannot be read as sessions is a
/// ``ServerSessionStoreError`` with code `.damaged` when the store opens, never an empty table.
final class FileServerSessionStore: ServerSessionStore {
    /// The file's name in the data directory.
    static let fileName = "server-sessions.json"

    private struct File: Codable {
        var version = 1
        var sessions: [String: ServerSession]
    }

    let url: URL
    private let sessions: Protected<[String: ServerSession]>

    /// Opens the sessions in `directory`, none when the file does not exist yet.
    /// - Throws: ``ServerSessionStoreError``: `.damaged` when the file is not a sessions file, `.io` when it cannot
    ///   be read.
    init(directory: URL) throws {
        url = directory.appendingPathComponent(Self.fileName)
        var loaded: [String: ServerSession] = [:]
        if FileManager.default.fileExists(atPath: url.path) {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw ServerSessionStoreError(code: .io, message: "cannot read \(url.path): \(error)")
            }
            do {
                let file = try JSONDecoder().decode(File.self, from: data)
                guard file.version == 1 else {
                    throw ServerSessionStoreError(
                        code: .damaged, message: "\(url.path) has version \(file.version); this server reads version 1")
                }
                loaded = file.sessions
            } catch let error as ServerSessionStoreError {
                throw error
            } catch {
                throw ServerSessionStoreError(
                    code: .damaged, message: "\(url.path) is damaged (not a sessions file): \(error); move it away to sign everyone out")
            }
        }
        sessions = Protected(loaded)
    }

    func create(_ session: ServerSession, id: String) async throws {
        try change { $0[id] = session }
    }

    func session(_ id: String) async throws -> ServerSession? {
        sessions.current[id]
    }

    func update<Result: Sendable>(
        _ id: String, _ body: @Sendable (ServerSession?) -> (ServerSessionChange, Result)
    ) async throws -> Result {
        try change { table in InMemoryServerSessionStore.apply(body, to: &table, id: id) }
    }

    func updateAll(_ body: @Sendable (inout ServerSession) -> Void) async throws {
        try change { table in
            for id in table.keys { body(&table[id]!) }
        }
    }

    func remove(_ id: String) async throws {
        try change { $0[id] = nil }
    }

    func removeAll(of userID: User.ID) async throws {
        try change { table in table = table.filter { $0.value.userID != userID } }
    }

    func removeSessions(refreshedBefore cutoff: Date) async throws -> Int {
        try change { table in InMemoryServerSessionStore.removeSessions(refreshedBefore: cutoff, from: &table) }
    }

    /// Changes a copy of the table, writes it, and only then keeps it: a failed write changes nothing.
    private func change<Result>(_ body: (inout [String: ServerSession]) -> Result) throws -> Result {
        try sessions.withLock { table in
            var copy = table
            let result = body(&copy)
            if copy != table {
                try write(copy)
                table = copy
            }
            return result
        }
    }

    private func write(_ table: [String: ServerSession]) throws {
        let data: Data
        do {
            data = try JSONEncoder().encode(File(sessions: table))
        } catch {
            throw ServerSessionStoreError(code: .io, message: "cannot encode the sessions: \(error)")
        }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(Self.fileName).tmp")
        let failure = { (step: String) in
            ServerSessionStoreError(code: .io, message: "cannot \(step) \(temporary.path): errno \(errno)")
        }
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw failure("create") }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
        guard written, fsync(descriptor) == 0 else {
            close(descriptor)
            throw failure("write")
        }
        close(descriptor)
        guard rename(temporary.path, url.path) == 0 else { throw failure("rename") }
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif
