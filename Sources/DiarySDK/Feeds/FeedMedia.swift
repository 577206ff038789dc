import Foundation

/// A Media RSS object (`media:content` or `media:thumbnail`).
public struct FeedMedia: Codable, Sendable, Hashable {
    /// The resolved media URL.
    public var url: URL
    /// The media type (`type` attribute), if given.
    public var type: String?
    /// The medium (`image`, `video`, …), if given.
    public var medium: String?
    /// The width in pixels, if given.
    public var width: Int?
    /// The height in pixels, if given.
    public var height: Int?

    /// Creates a media object.
    /// - Parameters:
    ///   - url: The media URL.
    ///   - type: The media type.
    ///   - medium: The medium keyword.
    ///   - width: The width in pixels.
    ///   - height: The height in pixels.
    /// - Returns: A new media value.
    public init(url: URL, type: String? = nil, medium: String? = nil, width: Int? = nil, height: Int? = nil) {
        self.url = url
        self.type = type
        self.medium = medium
        self.width = width
        self.height = height
    }
}
