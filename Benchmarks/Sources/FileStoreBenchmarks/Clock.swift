import Foundation

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
