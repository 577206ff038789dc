import DiarySDK
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Prints results as aligned tables or JSON, and errors as one line on standard error (a JSON object under `--json`).
struct Output {
    let json: Bool

    /// Prints a value as JSON (in `--json` mode) or runs `human` to print it for people.
    func show<Value: Encodable>(_ value: Value, human: () -> Void) {
        if json {
            print(Self.encode(value))
        } else {
            human()
        }
    }

    /// Reports a command that has nothing else to show: the sentence for people, `{"ok": true, "message": …}` plus
    /// `details` in `--json` mode, so every command prints JSON there.
    func done(_ message: String, _ details: [String: String] = [:]) {
        struct Done: Encodable {
            let ok = true
            let message: String
            let details: [String: String]

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(ok, forKey: Key("ok"))
                try container.encode(message, forKey: Key("message"))
                for (key, value) in details { try container.encode(value, forKey: Key(key)) }
            }
        }
        show(Done(message: message, details: details)) { print(message) }
    }

    /// A line for people (not printed in `--json` mode).
    func say(_ text: String) {
        if !json { print(text) }
    }

    /// A notice on standard error (`diary: …`, or `{"notice": …}` in `--json` mode) that does not stop the command.
    func note(_ text: String) {
        Self.standardError(json ? Self.encode(["notice": text]) : "diary: \(text)")
    }

    /// Prints an error as one line on standard error: `diary: <message> [<field>] (<code>)`, or in `--json` mode
    /// `{"error": {"code": …, "message": …, "field": …}}`.
    func fail(_ error: DiaryError) {
        if json {
            Self.failJSON(code: error.code.rawValue, message: error.message, field: error.field)
        } else {
            var line = "diary: \(error.message)"
            if let field = error.field { line += " [\(field)]" }
            line += " (\(error.code))"
            Self.standardError(line)
        }
    }

    /// Prints the JSON form of an error on standard error.
    static func failJSON(code: String, message: String, field: String? = nil) {
        struct Failure: Encodable {
            struct Body: Encodable {
                let code: String
                let message: String
                let field: String?
            }
            let error: Body
        }
        standardError(encode(Failure(error: .init(code: code, message: message, field: field)), pretty: false))
    }

    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func encode<Value: Encodable>(_ value: Value, pretty: Bool = true) -> String {
        let encoder = JSONEncoder.diary()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Renders rows as a table with aligned columns (by terminal display width), or `empty` when there are no rows.
    static func table(_ header: [String], _ rows: [[String]], empty: String) -> String {
        guard !rows.isEmpty else { return empty }
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], displayWidth(cell)) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - displayWidth(cell))
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    /// Terminal columns a string takes (see ``TerminalWidth``).
    static func displayWidth(_ text: String) -> Int {
        TerminalWidth.columns(text)
    }

    /// A short, single-line preview of text.
    static func preview(_ text: String, _ length: Int = 40) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > length ? String(flat.prefix(length - 1)) + "…" : flat
    }
}

/// A JSON object key made at run time.
struct Key: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
