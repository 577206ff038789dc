import DiarySDK
import DiarySDKTestSupport
import Foundation
import Testing

@testable import DiarySDKFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A way to run the crash writer without the power to ignore permission bits: tests run as root here, and root
/// passes every permission check, so the child drops to `nobody` through `setpriv`.
let unprivilegedWrapper: [String]? = {
    if geteuid() != 0 { return [] }
    let setpriv = "/usr/bin/setpriv"
    guard FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
}()

@Suite("File store locking and permissions")
struct LockTests {
    @Test func aSecondProcessGetsALockError() async throws {
        let directory = TestDirectory("lock")
        defer { directory.remove() }
        let backend = try directory.open()
        let child = try ChildProcess(arguments: [directory.path])
        let lines = await child.collect()
        #expect(child.process.terminationStatus == 2)
        let failure = try #require(lines.first { $0.hasPrefix("open-failed ") })
        #expect(failure.contains("conflict"))
        #expect(failure.contains("is open in another process"))
        try await backend.close()

        // Once closed, the other process may open it.
        let second = try ChildProcess(arguments: [directory.path, "4194304", "1"])
        let done = await second.collect()
        #expect(done.last == "done")
    }

    /// A lock held for a moment by another process (as one being spawned holds a copy of every descriptor until its
    /// `exec`) is waited for, not reported as a store open elsewhere.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock"), "needs util-linux flock"))
    func aLockHeldForAMomentByAnotherProcessIsWaitedFor() async throws {
        let directory = TestDirectory("brief-lock")
        defer { directory.remove() }
        try await directory.open().close()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        let ready = directory.path + "/holder-ready"
        holder.arguments = ["--exclusive", directory.path + "/" + StoreFiles.lock, "sh", "-c", "touch '\(ready)'; sleep 0.5"]
        try holder.run()
        defer { holder.waitUntilExit() }
        while !FileManager.default.fileExists(atPath: ready) { try await Task.sleep(nanoseconds: 5_000_000) }
        let backend = try directory.open()
        try await backend.close()
    }

    @Test func theSameDirectoryCannotBeOpenedTwiceInOneProcess() async throws {
        let directory = TestDirectory("twice")
        defer { directory.remove() }
        let backend = try directory.open()
        let error = try #require(openError(directory))
        #expect(error.code == .conflict)
        try await backend.close()
        let again = try directory.open()
        try await again.close()
    }

    @Test(.enabled(if: unprivilegedWrapper != nil, "needs a non-root user or setpriv to drop root"))
    func aReadOnlyDirectoryGivesATypedErrorAndIsLeftAsItWas() async throws {
        let (directory, _) = try await makeClosedStore("readonly", entries: 1)
        defer {
            chmod(directory.path, 0o755)
            directory.remove()
        }
        try FileManager.default.removeItem(at: directory.file("LOCK"))
        chmod(directory.url.deletingLastPathComponent().path, 0o755)
        chmod(directory.path, 0o555)
        let before = try directory.contents()

        let lines: [String]
        if geteuid() == 0 {
            let child = try ChildProcess(arguments: [directory.path], wrapper: unprivilegedWrapper ?? [])
            lines = await child.collect()
        } else {
            lines = openError(directory).map { ["open-failed \($0.code) \($0.message)"] } ?? []
        }
        let failure = try #require(lines.first { $0.hasPrefix("open-failed ") }, "\(lines)")
        #expect(failure.contains("unavailable"))
        #expect(failure.contains("Permission denied"))
        #expect(try directory.contents() == before)
    }

    @Test func anI_OFailureWhileOpeningIsATypedErrorWithTheSystemsReason() async throws {
        let directory = TestDirectory("eacces")
        defer { directory.remove() }
        let io = FailingFileIO()
        io.fail(.makeDirectory, on: directory.path, with: EACCES)
        do {
            _ = try directory.open(io: io)
            Issue.record("opening should have failed")
        } catch let error as DiaryError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("Permission denied"))
            #expect(error.message.contains(directory.path))
        }
    }
}
