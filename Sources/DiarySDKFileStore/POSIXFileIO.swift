@_spi(Storage) import DiarySDK
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real file operations: POSIX calls, with `fsync` (`F_FULLFSYNC` on Apple platforms, where `fsync` alone
/// does not flush the drive's cache).
struct POSIXFileIO: FileIO {
    func openFile(_ path: String, create: Bool) throws -> Int32 {
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0)
        let descriptor = retryingInterrupts { open(path, flags, 0o600) }
        guard descriptor >= 0 else { throw FileIOError(operation: "open", path: path, code: errno) }
        return descriptor
    }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws {
        var written = 0
        while written < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset + written))
            if result < 0 {
                if errno == EINTR { continue }
                throw FileIOError(operation: "write", path: path, code: errno)
            }
            if result == 0 { throw FileIOError(operation: "write", path: path, code: EIO) }
            written += result
        }
    }

    /// Makes a file's data durable, with its size: `F_FULLFSYNC` on Apple platforms, `fdatasync` elsewhere.
    ///
    /// `fdatasync` flushes the data and the metadata needed to read it back (the size, the block map), but not the
    /// modification time, which `fsync` would commit through the file system's journal on every call: a journal
    /// append that overwrites reserved space then costs one data flush (SQLite uses `fdatasync` where it exists for
    /// the same reason).
    func sync(_ descriptor: Int32, path: String) throws {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
            guard retryingInterrupts({ fsync(descriptor) }) == 0 else {
                throw FileIOError(operation: "fsync", path: path, code: errno)
            }
        #else
            guard retryingInterrupts({ fdatasync(descriptor) }) == 0 else {
                throw FileIOError(operation: "fdatasync", path: path, code: errno)
            }
        #endif
    }

    /// `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)` on Linux, which writes the range out and waits for it
    /// without a device flush; `fsync` without `F_FULLFSYNC` on Apple platforms, which hands the data to the drive
    /// without flushing the drive's cache. Where `sync_file_range` is missing or refused (a static binary, a
    /// sandbox's system call filter) it does nothing: it is not a durability point, and the flush that follows
    /// writes the range anyway.
    func writeBack(_ descriptor: Int32, range: Range<Int>, path: String) throws {
        #if canImport(Darwin)
            guard retryingInterrupts({ fsync(descriptor) }) == 0 else {
                throw FileIOError(operation: "fsync", path: path, code: errno)
            }
        #else
            guard let syncFileRange = Self.syncFileRange, Self.isSyncFileRangeRefused.withLock({ !$0 }) else { return }
            // SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER (<fcntl.h>).
            let flags: UInt32 = 0x1 | 0x2 | 0x4
            guard
                retryingInterrupts({ syncFileRange(descriptor, Int64(range.lowerBound), Int64(range.count), flags) })
                    != 0
            else { return }
            let code = errno
            if code == ENOSYS || code == EPERM || code == EINVAL || code == ESPIPE {
                Self.isSyncFileRangeRefused.withLock { $0 = true }
                return
            }
            throw FileIOError(operation: "write back", path: path, code: code)
        #endif
    }

    #if !canImport(Darwin)
        /// `sync_file_range(2)`, looked up once: the C library declares it only for `_GNU_SOURCE`, which the Swift
        /// overlay of the C library does not define, so it is not visible to Swift by name.
        private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        }()
        /// Set once the kernel refused `sync_file_range` as unsupported or forbidden.
        private static let isSyncFileRangeRefused = Locked(false)
    #endif

    func truncate(_ descriptor: Int32, to length: Int, path: String) throws {
        guard retryingInterrupts({ ftruncate(descriptor, off_t(length)) }) == 0 else {
            throw FileIOError(operation: "truncate", path: path, code: errno)
        }
    }

    func size(_ descriptor: Int32, path: String) throws -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw FileIOError(operation: "stat", path: path, code: errno) }
        return Int(info.st_size)
    }

    func close(_ descriptor: Int32) {
        #if canImport(Darwin)
            _ = Darwin.close(descriptor)
        #elseif canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
            _ = Musl.close(descriptor)
        #endif
    }

    func lockExclusively(_ descriptor: Int32, path: String) throws -> Bool {
        if retryingInterrupts({ flock(descriptor, LOCK_EX | LOCK_NB) }) == 0 { return true }
        let code = errno
        if code == EWOULDBLOCK || code == EAGAIN { return false }
        throw FileIOError(operation: "lock", path: path, code: code)
    }

    func readFile(_ path: String) throws -> Data? {
        let descriptor = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw FileIOError(operation: "open", path: path, code: errno)
        }
        defer { close(descriptor) }
        let length = try size(descriptor, path: path)
        var data = Data(count: length)
        var total = 0
        try data.withUnsafeMutableBytes { buffer in
            while total < length {
                let result = pread(descriptor, buffer.baseAddress! + total, length - total, off_t(total))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw FileIOError(operation: "read", path: path, code: errno)
                }
                if result == 0 { break }
                total += result
            }
        }
        if total < length { data.removeSubrange(total..<length) }
        return data
    }

    func rename(_ source: String, to target: String) throws {
        #if canImport(Darwin)
            let result = Darwin.rename(source, target)
        #elseif canImport(Glibc)
            let result = Glibc.rename(source, target)
        #else
            let result = Musl.rename(source, target)
        #endif
        guard result == 0 else { throw FileIOError(operation: "rename", path: source, code: errno) }
    }

    func removeFile(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileIOError(operation: "remove", path: path, code: errno)
        }
    }

    func syncDirectory(_ path: String) throws {
        let descriptor = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY) }
        guard descriptor >= 0 else { throw FileIOError(operation: "open directory", path: path, code: errno) }
        defer { close(descriptor) }
        try sync(descriptor, path: path)
    }

    func makeDirectory(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw FileIOError(operation: "use as a directory", path: path, code: ENOTDIR)
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeDirectory(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw FileIOError(operation: "create directory", path: path, code: errno)
        }
    }

    func listDirectory(_ path: String) throws -> [String] {
        guard let stream = opendir(path) else {
            throw FileIOError(operation: "list", path: path, code: errno)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
