import Foundation

/// A fatal problem that prevented a document from being parsed into a feed.
///
/// Switch on ``code`` to react to the kind of failure; ``message`` says what was wrong in words.
public struct FeedParsingError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. An open set of constants, so new kinds can be added without breaking `switch`es
    /// that have a `default:` branch.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The constant's stable name.
        public let rawValue: String

        /// Creates a code from its name.
        /// - Parameters:
        ///   - rawValue: The stable name.
        /// - Returns: The code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The XML is not well-formed and nothing usable could be recovered.
        public static let malformedXML = Code(rawValue: "malformedXML")
        /// The document starts like JSON (`{`) but is not well-formed JSON.
        public static let malformedJSON = Code(rawValue: "malformedJSON")
        /// The document is a recognisable XML/JSON document but not a known feed format.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// The document is larger than ``FeedParser/Configuration/maxBytes``.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// Elements nest deeper than ``FeedParser/Configuration/maxDepth``.
        public static let tooDeep = Code(rawValue: "tooDeep")
        /// The DTD declares entities that expand recursively (an "entity bomb").
        public static let entityExpansion = Code(rawValue: "entityExpansion")
        /// The declared or supplied character encoding cannot be decoded on this platform.
        public static let unsupportedEncoding = Code(rawValue: "unsupportedEncoding")
        /// The bytes are neither XML nor JSON (for example an HTML page or binary data).
        public static let notAFeed = Code(rawValue: "notAFeed")
        /// Reading the file or stream failed.
        public static let io = Code(rawValue: "io")

        /// The name of the code.
        /// - Returns: ``rawValue``.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The 1-based line of the problem, where known.
    public var line: Int?
    /// The 1-based column of the problem, where known.
    public var column: Int?
    /// The error reported by the lower layer (XMLParser, JSONDecoder, FileManager…), if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A human-readable explanation.
    ///   - line: The 1-based line, where known.
    ///   - column: The 1-based column, where known.
    ///   - underlying: The lower layer's error.
    /// - Returns: A new error.
    public init(_ code: Code, _ message: String, line: Int? = nil, column: Int? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.underlying = underlying
    }

    /// A one-line rendering: code, position and message.
    /// - Returns: The description.
    public var description: String {
        var text = "FeedParsingError.\(code.rawValue)"
        if let line { text += " at \(line):\(column ?? 0)" }
        return text + ": " + message
    }
}
