import Foundation

enum Measure {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

    /// CPU time used by this process (every thread) so far.
    static func cpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Wall and process CPU microseconds per call of `count` calls of `operation`, one after another.
    static func perCall(
        _ count: Int, _ operation: (Int) async throws -> Void
    ) async throws -> (wall: Double, cpu: Double) {
        let start = now()
        let cpu = cpuNanoseconds()
        for index in 0..<count { try await operation(index) }
        let wall = Double(now() - start) / 1_000 / Double(count)
        return (wall, Double(cpuNanoseconds() - cpu) / 1_000 / Double(count))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// "median (min–max)".
    static func summary(_ values: [Double], _ format: String) -> String {
        "\(String(format: format, median(values))) (\(String(format: format, values.min()!))–\(String(format: format, values.max()!)))"
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "n/a")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// Progress on standard error, so standard output holds only the report.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
