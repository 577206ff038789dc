import Foundation

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
