import DiarySDK
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One of the package's crash-test executables (`DiarySDKCrashWriter`, `DiarySDKOfflineCrashWriter`) run as a child
/// process, with its output lines collected as they arrive. For the package's own tests; not a product.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let output = Pipe()
    private let received = Locked<(lines: [String], partial: String, finished: Bool)>(([], "", false))

    /// An executable of this package beside the test bundle: in the build products directory that holds the test
    /// runner.
    public static func executableURL(_ name: String) throws -> URL {
        var candidates: [URL] = []
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(runner.deletingLastPathComponent())
        // On Apple platforms the runner is Xcode's `xctest`; the test bundle itself sits in the products folder.
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw DiaryError(.notFound, "\(name) not found near \(candidates.map(\.path))")
    }

    /// Starts an executable (the file store's crash writer by default), optionally through a wrapper command such
    /// as `setpriv`.
    public init(
        _ executable: String = "DiarySDKCrashWriter", arguments: [String], wrapper: [String] = [],
        environment: [String: String]? = nil
    ) throws {
        let writer = try Self.executableURL(executable)
        if let tool = wrapper.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(wrapper.dropFirst()) + [writer.path] + arguments
        } else {
            process.executableURL = writer
            process.arguments = arguments
        }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? output.fileHandleForWriting.close()
        let reader = output.fileHandleForReading
        let received = self.received
        DispatchQueue.global().async {
            while true {
                let data = reader.availableData
                received.withLock { state in
                    if data.isEmpty {
                        if !state.partial.isEmpty { state.lines.append(state.partial) }
                        state.partial = ""
                        state.finished = true
                        return
                    }
                    state.partial += String(decoding: data, as: UTF8.self)
                    var parts = state.partial.components(separatedBy: "\n")
                    state.partial = parts.removeLast()
                    state.lines += parts
                }
                if data.isEmpty { return }
            }
        }
    }

    /// The lines printed so far.
    public var lines: [String] { received.current.lines }

    /// Waits until a condition on the lines holds, the output ends, or the timeout passes. The condition is checked
    /// once more at the end, so a test task that was not scheduled until after the deadline (a loaded machine running
    /// the whole suite) still sees what the child printed.
    @discardableResult
    public func wait(timeout: TimeInterval, until condition: ([String]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let state = received.current
            if condition(state.lines) { return true }
            if state.finished { return false }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return condition(received.current.lines)
    }

    /// Kills the child with SIGKILL and returns every line it printed.
    public func killAndCollect() async -> [String] {
        kill(process.processIdentifier, SIGKILL)
        return await collect()
    }

    /// Waits for the child to exit and its output to end, and returns every line.
    public func collect() async -> [String] {
        process.waitUntilExit()
        await wait(timeout: 30) { _ in false }
        return lines
    }
}
