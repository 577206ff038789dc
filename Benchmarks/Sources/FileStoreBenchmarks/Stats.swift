import Foundation

/// Order statistics of measurements.
enum Stats {
    /// The middle value (the upper middle for an even count); 0 when empty.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }

    /// The nearest-rank percentile `p` (0…100): with fewer than 100 values, p99 is the largest.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }

    /// The arithmetic mean; 0 when empty.
    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }
}

/// One figure measured once per round: reported as the median of the rounds and their spread.
struct Figure {
    var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double { Stats.median(values) }
    var min: Double { values.min() ?? 0 }
    var max: Double { values.max() ?? 0 }
    var isEmpty: Bool { values.isEmpty }

    /// "median (min–max)" with a unit formatter.
    func text(_ format: (Double) -> String) -> String {
        guard !values.isEmpty else { return "—" }
        if values.count == 1 { return format(median) }
        return "\(format(median)) (\(format(min))–\(format(max)))"
    }
}

/// Unit formatters for the report.
enum Format {
    static func ms(_ seconds: Double) -> String {
        let value = seconds * 1_000
        if value >= 100 { return String(format: "%.0f ms", value) }
        if value >= 10 { return String(format: "%.1f ms", value) }
        if value >= 1 { return String(format: "%.2f ms", value) }
        return String(format: "%.3f ms", value)
    }

    static func seconds(_ seconds: Double) -> String { String(format: "%.3f s", seconds) }
    static func ratio(_ value: Double) -> String {
        if value >= 0.1 || value == 0 { return String(format: "%.2f×", value) }
        return String(format: "%.2g×", value)  // two significant digits for the small ratios
    }
    static func bytes(_ value: Double) -> String { String(format: "%.0f B", value) }
    static func mib(_ value: Double) -> String { String(format: "%.1f MiB", value / 1_048_576) }
    static func count(_ value: Int) -> String { value.formatted() }
}

/// Wall-clock timing on the monotonic clock, which child processes share with their parent.
enum Clock {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    static func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return seconds(since: start)
    }

    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = now()
        try await body()
        return seconds(since: start)
    }
}
