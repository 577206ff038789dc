import Foundation

/// A category or tag with its optional scheme (RSS `domain`, Atom `scheme`).
public struct FeedCategory: Codable, Sendable, Hashable {
    /// The category term.
    public var term: String
    /// The scheme / domain URI the term belongs to.
    public var scheme: String?
    /// A human-readable label (Atom `label`).
    public var label: String?

    /// Creates a category.
    /// - Parameters:
    ///   - term: The category term.
    ///   - scheme: The scheme or domain.
    ///   - label: A human-readable label.
    /// - Returns: A new category value.
    public init(term: String, scheme: String? = nil, label: String? = nil) {
        self.term = term
        self.scheme = scheme
        self.label = label
    }
}
