import Foundation

/// An attached media file (RSS `enclosure`, Atom `rel="enclosure"`, JSON Feed attachment).
public struct FeedEnclosure: Codable, Sendable, Hashable {
    /// The resolved file URL.
    public var url: URL
    /// The advertised media type.
    public var type: String?
    /// The advertised size in bytes.
    public var length: Int64?

    /// Creates an enclosure.
    /// - Parameters:
    ///   - url: The file URL.
    ///   - type: The advertised media type.
    ///   - length: The advertised size in bytes.
    /// - Returns: A new enclosure value.
    public init(url: URL, type: String? = nil, length: Int64? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}
