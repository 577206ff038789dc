import DiarySDK
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `DiarySDKCrashWriter` executable run as a child process, with its output lines collected as they arrive.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let received = Locked<(lines: [String], partial: String, finished: Bool)>(([], "", false))

    /// The crash writer beside the test bundle: in the build products directory that holds the test runner.
    static var crashWriterURL: URL {
        get throws {
            var candidates: [URL] = []
            let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            candidates.append(runner.deletingLastPathComponent())
            // On Apple platforms the runner is Xcode's `xctest`; the test bundle itself sits in the products folder.
            for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
                candidates.append(bundle.bundleURL.deletingLastPathComponent())
            }
            candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
            for directory in candidates {
                let url = directory.appendingPathComponent("DiarySDKCrashWriter")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            throw DiaryError(.notFound, "DiarySDKCrashWriter not found near \(candidates.map(\.path))")
        }
    }

    /// Starts the crash writer, optionally through a wrapper command such as `setpriv`.
    init(arguments: [String], wrapper: [String] = []) throws {
        let writer = try Self.crashWriterURL
        if let tool = wrapper.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(wrapper.dropFirst()) + [writer.path] + arguments
        } else {
            process.executableURL = writer
            process.arguments = arguments
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

    var lines: [String] { received.current.lines }

    /// Waits until a condition on the lines holds, the output ends, or the timeout passes. The condition is checked
    /// once more at the end, so a test task that was not scheduled until after the deadline (a loaded machine running
    /// the whole suite) still sees what the child printed.
    @discardableResult
    func wait(timeout: TimeInterval, until condition: ([String]) -> Bool) async -> Bool {
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
    func killAndCollect() async -> [String] {
        kill(process.processIdentifier, SIGKILL)
        return await collect()
    }

    /// Waits for the child to exit and its output to end, and returns every line.
    func collect() async -> [String] {
        process.waitUntilExit()
        await wait(timeout: 30) { _ in false }
        return lines
    }
}
