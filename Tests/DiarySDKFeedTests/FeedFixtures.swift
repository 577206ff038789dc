import Foundation
import Testing

/// Locates the shared feed fixtures: `$DIARYSDK_FEEDS_DIR`, else `<packageRoot>/../shared/feeds`.
enum FeedFixtures {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "Feed fixtures not found at \(path). Set DIARYSDK_FEEDS_DIR or place the shared data at <packageRoot>/../shared/feeds."
        }
    }

    /// The fixtures directory; throws (failing the test) when it does not exist.
    static func directory() throws -> URL {
        let fm = FileManager.default
        if let override = ProcessInfo.processInfo.environment["DIARYSDK_FEEDS_DIR"], !override.isEmpty {
            let url = URL(fileURLWithPath: override, isDirectory: true)
            guard fm.fileExists(atPath: url.path) else { throw Missing(path: url.path) }
            return url
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" && !fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        let url = dir.appendingPathComponent("../shared/feeds", isDirectory: true).standardizedFileURL
        guard fm.fileExists(atPath: url.appendingPathComponent("manifest.json").path) else { throw Missing(path: url.path) }
        return url
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: directory().appendingPathComponent(relativePath))
    }

    static func json(_ relativePath: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: data(relativePath))
        guard let dict = object as? [String: Any] else { throw Missing(path: relativePath) }
        return dict
    }

    /// Seconds since 1970 of a UTC civil time, computed by counting days (independent of the parser's formula).
    static func epochSeconds(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> Double {
        func leap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }
        let monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var days = 0
        if y >= 1970 { for year in 1970..<y { days += leap(year) ? 366 : 365 } } else { for year in y..<1970 { days -= leap(year) ? 366 : 365 } }
        for m in 1..<mo { days += monthDays[m - 1] + (m == 2 && leap(y) ? 1 : 0) }
        days += d - 1
        return Double(days * 86_400 + h * 3_600 + mi * 60 + s)
    }
}
