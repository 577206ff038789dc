@_spi(Engine) import DiarySDK
import Foundation
import Logging

/// A swift-log handler writing one line per message to standard output, at once (unbuffered, so a supervisor sees
/// it immediately):
///
///     2026-11-23T19:04:05.123Z info diary.http: request duration_ms=3.1 method=GET request_id=4f0c… route=/v1/diaries/{diaryID} status=200
///
/// The time (UTC, milliseconds), the level, the logger's label and the message come first; the metadata follows as
/// `key=value` pairs sorted by key, a value quoted (`key="a b"`, with `\"` and `\\` escaped) when it holds a space,
/// a quote, a backslash, an `=` or a line break. Line breaks in a message or a value are written as `\n`, so one call is always one
/// line. A line without metadata ends with its message (the start-up line `DiaryServer listening on HOST:PORT`).
struct LineLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    let label: String
    private let write: @Sendable (String) -> Void

    /// A handler writing to standard output.
    init(label: String, level: Logger.Level) {
        self.init(label: label, level: level) { line in FileHandle.standardOutput.write(Data(line.utf8)) }
    }

    /// A handler handing each finished line (with its line break) to `write`.
    init(label: String, level: Logger.Level, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.logLevel = level
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        var line = "\(Self.timestamp()) \(event.level) \(label): \(Self.oneLine(event.message.description))"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(Self.quoted(Self.text(value)))"
        }
        write(line + "\n")
    }

    /// A metadata value as text: a string as is, a list or a dictionary in brackets.
    private static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): "[" + values.map(text).joined(separator: ",") + "]"
        case .dictionary(let values):
            "[" + values.sorted(by: { $0.key < $1.key }).map { "\($0.key):\(text($0.value))" }.joined(separator: ",") + "]"
        }
    }

    /// A value as it is written: quoted and escaped when it would otherwise not read back as one value.
    static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" || $0 == "=" || $0.isNewline })
        else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + oneLine(escaped) + "\""
    }

    private static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Now, `yyyy-MM-ddTHH:mm:ss.SSSZ`: the SDK's RFC 3339 writer (microseconds) cut to milliseconds, which costs
    /// a fraction of a `Date.formatted` on every line.
    static func timestamp(_ date: Date = Date()) -> String {
        let full = WireDate.string(from: date)
        guard full.utf8.count == 27 else { return full }
        return String(decoding: full.utf8.prefix(23), as: UTF8.self) + "Z"
    }
}
