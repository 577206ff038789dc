import Foundation

/// A non-fatal observation made while parsing: a repair, a skipped value, an ignored construct.
public struct FeedDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious the observation is.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The document was not well-formed and was repaired (feedparser's `bozo`).
        case repaired
        /// A value was unusable and left empty (for example an unparseable date).
        case warning
        /// Informational only (for example: parsing stopped at `maxItems`).
        case info
    }

    /// A stable identifier of the kind of observation, such as `htmlEntity` or `invalidDate`.
    public var kind: String
    /// How serious the observation is.
    public var severity: Severity
    /// A human-readable explanation.
    public var message: String
    /// The 1-based line, where known.
    public var line: Int?

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - kind: A stable identifier of the kind of observation.
    ///   - severity: How serious it is.
    ///   - message: A human-readable explanation.
    ///   - line: The 1-based line, where known.
    /// - Returns: A new diagnostic.
    public init(kind: String, severity: Severity, message: String, line: Int? = nil) {
        self.kind = kind
        self.severity = severity
        self.message = message
        self.line = line
    }

    /// A one-line rendering.
    /// - Returns: The description.
    public var description: String { "[\(severity.rawValue)] \(kind): \(message)" }
}
