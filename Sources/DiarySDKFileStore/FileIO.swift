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
    /// Writes a range of a file out to the device and waits until it is written, without flushing the device's
    /// volatile cache: the bytes are then made durable by the next flush of any file on that device, and a flush
    /// meanwhile waits for them alone, not for everything written before. Not a durability point (``sync(_:path:)``
    /// still follows).
    func writeBack(_ descriptor: Int32, range: Range<Int>, path: String) throws
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
    func writeAtomically(_ data: Data, to path: String) throws {
        try writeAtomically(to: path) { file in try file.write(data, at: 0) }
    }

    /// Writes a file durably from what `fill` writes into it: a temporary file, filled, `fsync`ed, renamed over the
    /// target, then an `fsync` of the directory. When `fill` throws the temporary file is removed and the target
    /// left as it was.
    func writeAtomically(to path: String, _ fill: (TemporaryFile) throws -> Void) throws {
        let temporary = path + ".tmp"
        let descriptor = try openFile(temporary, create: true)
        do {
            try truncate(descriptor, to: 0, path: temporary)
            try fill(TemporaryFile(io: self, descriptor: descriptor, path: temporary))
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

/// The temporary file ``FileIO/writeAtomically(to:_:)`` fills.
struct TemporaryFile {
    let io: any FileIO
    let descriptor: Int32
    let path: String

    /// Writes bytes at an offset.
    func write(_ data: Data, at offset: Int) throws {
        try data.withUnsafeBytes { try io.write(descriptor, $0, at: offset, path: path) }
    }

    /// Writes a range out to the device without flushing its cache (``FileIO/writeBack(_:range:path:)``).
    func writeBack(_ range: Range<Int>) throws {
        try io.writeBack(descriptor, range: range, path: path)
    }

    /// Flushes what has been written so far (``FileIO/sync(_:path:)``).
    func sync() throws {
        try io.sync(descriptor, path: path)
    }
}
