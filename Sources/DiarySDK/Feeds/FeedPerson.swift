import Foundation

/// A person (author or contributor) of a feed or an item.
public struct FeedPerson: Codable, Sendable, Hashable {
    /// The display name, if any.
    public var name: String?
    /// The e-mail address, if any.
    public var email: String?
    /// A home page or profile URL, if any.
    public var url: URL?

    /// Creates a person.
    /// - Parameters:
    ///   - name: The display name.
    ///   - email: The e-mail address.
    ///   - url: A home page or profile URL.
    /// - Returns: A new person value.
    public init(name: String? = nil, email: String? = nil, url: URL? = nil) {
        self.name = name
        self.email = email
        self.url = url
    }
}
