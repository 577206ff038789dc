import DiarySDK
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Prints results as aligned tables or JSON, and errors as one line on standard error.
struct Output {
    let json: Bool

    /// Prints a value as JSON (in `--json` mode) or runs `human` to print it for people.
    func show<Value: Encodable>(_ value: Value, human: () -> Void) {
        if json {
            let encoder = JSONEncoder.diary()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(value)) ?? Data("null".utf8)
            print(String(decoding: data, as: UTF8.self))
        } else {
            human()
        }
    }

    /// A line for people (not printed in `--json` mode).
    func say(_ text: String) {
        if !json { print(text) }
    }

    /// Prints an error as one line: `diary: <message> (<code>)`.
    static func fail(_ error: DiaryError) {
        var line = "diary: \(error.message)"
        if let field = error.field { line += " [\(field)]" }
        line += " (\(error.code))"
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Renders rows as a table with aligned columns (display width aware for Hangul and emoji).
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], displayWidth(cell)) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - displayWidth(cell))
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    /// Terminal columns a string takes: wide for Hangul, CJK and emoji.
    static func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            if scalar.properties.generalCategory == .nonspacingMark || scalar.value == 0xFE0F || scalar.value == 0x200D {
                return width
            }
            let value = scalar.value
            let wide =
                (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value) || (0xAC00...0xD7A3).contains(value)
                || (0xF900...0xFAFF).contains(value) || (0xFF00...0xFF60).contains(value) || (0x1F300...0x1FAFF).contains(value)
                || (0x2600...0x27BF).contains(value)
            return width + (wide ? 2 : 1)
        }
    }

    /// A short, single-line preview of text.
    static func preview(_ text: String, _ length: Int = 40) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > length ? String(flat.prefix(length - 1)) + "…" : flat
    }
}
