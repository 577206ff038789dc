@_spi(Storage) import DiarySDK
import Foundation

/// The file operations the store uses, behind a small seam so tests can inject failures (a full disk, a failing
/// `fsync`). ``POSIXFileIO`` is the real implementation and the only one the public API uses.
protocol FileIO: Sendable {
    /// Opens a file for reading and writing, creating it (mode 0600) when `create` is set.
    func openFile(_ path: String, create: Bool) throws -> Int32
    /// Writes all bytes at an offset.
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws
    /// Flushes a file's data and metadata to the device.
    func sync(_ descriptor: Int32, path: String) throws
    /// Cuts a file to a length.
    func truncate(_ descriptor: Int32, to length: Int, path: String) throws
    /// The size of an open file.
    func size(_ descriptor: Int32, path: String) throws -> Int
    /// Closes a descriptor, ignoring errors.
    func close(_ descriptor: Int32)
    /// Takes an exclusive, non-blocking lock; `false` when another process holds it.
    func lockExclusively(_ descriptor: Int32, path: String) throws -> Bool
    /// The whole contents of a file, or `nil` when it does not exist.
    func readFile(_ path: String) throws -> Data?
    /// Renames a file, replacing the target.
    func rename(_ source: String, to target: String) throws
    /// Removes a file; a missing file is not an error.
    func removeFile(_ path: String) throws
    /// Flushes a directory's entries (renames, creations, removals) to the device.
    func syncDirectory(_ path: String) throws
    /// Creates a directory and its parents (mode 0700) when missing.
    func makeDirectory(_ path: String) throws
    /// The names in a directory.
    func listDirectory(_ path: String) throws -> [String]
}

/// A failed file operation: what was done, to which path, and the `errno`.
struct FileIOError: Error, Sendable, CustomStringConvertible {
    var operation: String
    var path: String
    var code: Int32

    var description: String { "could not \(operation) \(path): \(String(cString: strerror(code))) (errno \(code))" }

    /// The error users see: `.unavailable` for every I/O failure (full disk, permissions, read-only volume).
    var diaryError: DiaryError {
        DiaryError(.unavailable, description, underlying: self)
    }
}

// MARK: - Helpers

extension FileIO {
    /// Writes a whole file durably: a temporary file, `fsync`, rename over the target, `fsync` of the directory.
    /// - Parameter chunk: When set, the data goes out in pieces of this many bytes, each flushed before the next is
    ///   written, so that another file's flush meanwhile (a journal append's) waits for one piece at most, not for
    ///   the whole file (see ``FileDiaryStore/snapshotChunk``).
    func writeAtomically(_ data: Data, to path: String, flushingEvery chunk: Int? = nil) throws {
        let temporary = path + ".tmp"
        let descriptor = try openFile(temporary, create: true)
        do {
            try truncate(descriptor, to: 0, path: temporary)
            try data.withUnsafeBytes { bytes in
                let step = max(1, chunk ?? bytes.count)
                var offset = 0
                repeat {
                    let end = min(bytes.count, offset + step)
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
                    try write(descriptor, piece, at: offset, path: temporary)
                    offset = end
                    if offset < bytes.count { try sync(descriptor, path: temporary) }
                } while offset < bytes.count
            }
            try sync(descriptor, path: temporary)
            close(descriptor)
        } catch {
            close(descriptor)
            try? removeFile(temporary)
            throw error
        }
        do {
            try rename(temporary, to: path)
        } catch {
            try? removeFile(temporary)
            throw error
        }
        try syncDirectory((path as NSString).deletingLastPathComponent)
    }
}
