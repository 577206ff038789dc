import DiarySDK
import DiarySDKFileStore
import Foundation
import GRDB

/// Memory and start-up figures, each measured in a fresh child process of this executable so that no measurement
/// inherits another's heap: the child opens one store, reads page 1 of the author's entries, and reports the
/// monotonic clock at that moment and its resident memory (`VmRSS`, `VmHWM` from /proc/self/status; Linux only).
enum ChildProcess {
    struct Result: Codable {
        /// `CLOCK_MONOTONIC` when page 1 was read.
        var pageNanoseconds: UInt64
        /// Resident bytes before opening, after opening, and the peak.
        var residentBefore: Int
        var residentAfterOpen: Int
        var peak: Int
        var items: Int
    }

    /// `FileStoreBenchmarks child <file|sqlite> <path>`: the child's side.
    static func runChild(kind: String, path: String) async throws {
        let before = status("VmRSS")
        let result: Result
        switch kind {
        case "file":
            let backend = try FileStoreBackend(configuration: FileStoreBench.configuration(URL(fileURLWithPath: path)))
            let afterOpen = status("VmRSS")
            let items = try await FileStoreBench.firstPage(backend)
            let page = Clock.now()
            result = Result(pageNanoseconds: page, residentBefore: before, residentAfterOpen: afterOpen, peak: status("VmHWM"), items: items)
            try await backend.close()
        case "sqlite":
            result = try sqliteChild(path: path, residentBefore: before)
        default:
            throw BenchmarkError("unknown store kind \(kind)")
        }
        print("RESULT " + String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }

    private static func sqliteChild(path: String, residentBefore: Int) throws -> Result {
        let pool = try DatabasePool(path: path)
        let afterOpen = status("VmRSS")
        let items = try pool.read { try SQLiteDiaries.firstPage(author: Dataset.author, in: $0) }.count
        let page = Clock.now()
        try pool.close()
        return Result(
            pageNanoseconds: page, residentBefore: residentBefore, residentAfterOpen: afterOpen, peak: status("VmHWM"),
            items: items)
    }

    /// Spawns a child for one store.
    /// - Returns: Seconds from spawning to page 1, and the child's report.
    static func measure(kind: String, path: String) throws -> (seconds: Double, result: Result) {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["child", kind, path]
        let output = Pipe()
        process.standardOutput = output
        let start = Clock.now()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RESULT ") })
        else { throw BenchmarkError("the child for \(kind) \(path) failed (\(process.terminationStatus)): \(text)") }
        let result = try JSONDecoder().decode(Result.self, from: Data(line.dropFirst("RESULT ".count).utf8))
        guard result.items > 0 else { throw BenchmarkError("the child for \(kind) \(path) read an empty page") }
        return (Double(result.pageNanoseconds - start) / 1e9, result)
    }

    /// A `/proc/self/status` field in bytes; 0 where there is none (not Linux).
    static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) } ?? 0
            return number * 1024
        }
        return 0
    }
}
