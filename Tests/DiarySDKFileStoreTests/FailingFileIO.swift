import Foundation

@testable import DiarySDKFileStore

/// Real file I/O that fails on demand: the chosen operation on paths containing a fragment throws an `errno`.
final class FailingFileIO: FileIO, @unchecked Sendable {
    enum Operation: Sendable {
        case write, sync, makeDirectory
    }

    struct Failure: Sendable {
        var operation: Operation
        var pathFragment: String
        var code: Int32
        var remaining: Int
    }

    private let real = POSIXFileIO()
    private let failure = NSLock()
    private var planned: Failure?
    private var synced: [String] = []
    /// A flush of a path containing the fragment takes at least this long (a slow device).
    private var slowSync: (pathFragment: String, microseconds: UInt32)?

    /// Makes every flush of paths containing `pathFragment` take at least `microseconds` more.
    func slowSyncs(on pathFragment: String, by microseconds: UInt32) {
        failure.withLock { slowSync = (pathFragment, microseconds) }
    }

    /// Every path passed to `sync` or `syncDirectory`, in order.
    var syncedPaths: [String] { failure.withLock { synced } }

    /// Makes the next `times` matching calls fail (every one until ``heal()`` when `nil`).
    func fail(_ operation: Operation, on pathFragment: String, with code: Int32, times: Int? = nil) {
        failure.withLock {
            planned = Failure(operation: operation, pathFragment: pathFragment, code: code, remaining: times ?? .max)
        }
    }

    func heal() {
        failure.withLock { planned = nil }
    }

    private func check(_ operation: Operation, _ path: String, _ name: String) throws {
        let code = failure.withLock { () -> Int32? in
            guard let planned, planned.operation == operation, path.contains(planned.pathFragment) else { return nil }
            self.planned?.remaining -= 1
            if planned.remaining <= 1 { self.planned = nil }
            return planned.code
        }
        if let code { throw FileIOError(operation: name, path: path, code: code) }
    }

    func openFile(_ path: String, create: Bool) throws -> Int32 { try real.openFile(path, create: create) }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws {
        try check(.write, path, "write")
        try real.write(descriptor, bytes, at: offset, path: path)
    }

    func sync(_ descriptor: Int32, path: String) throws {
        try check(.sync, path, "fsync")
        if let slow = failure.withLock({ slowSync }), path.contains(slow.pathFragment) { usleep(slow.microseconds) }
        try real.sync(descriptor, path: path)
        failure.withLock { synced.append(path) }
    }

    func writeBack(_ descriptor: Int32, range: Range<Int>, path: String) throws {
        try check(.sync, path, "write back")
        try real.writeBack(descriptor, range: range, path: path)
    }

    func truncate(_ descriptor: Int32, to length: Int, path: String) throws {
        try real.truncate(descriptor, to: length, path: path)
    }

    func size(_ descriptor: Int32, path: String) throws -> Int { try real.size(descriptor, path: path) }
    func close(_ descriptor: Int32) { real.close(descriptor) }
    func lockExclusively(_ descriptor: Int32, path: String) throws -> Bool {
        try real.lockExclusively(descriptor, path: path)
    }
    func readFile(_ path: String) throws -> Data? { try real.readFile(path) }
    func rename(_ source: String, to target: String) throws { try real.rename(source, to: target) }
    func removeFile(_ path: String) throws { try real.removeFile(path) }
    func syncDirectory(_ path: String) throws {
        try real.syncDirectory(path)
        failure.withLock { synced.append(path) }
    }

    func makeDirectory(_ path: String) throws {
        try check(.makeDirectory, path, "create directory")
        try real.makeDirectory(path)
    }

    func listDirectory(_ path: String) throws -> [String] { try real.listDirectory(path) }
}
