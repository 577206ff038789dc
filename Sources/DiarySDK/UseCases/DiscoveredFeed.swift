import Foundation

/// A feed found and validated by ``FeedDiscoverer``: what registration needs to create the blog.
public struct DiscoveredFeed: Sendable, Hashable {
    /// The feed's address (after redirects).
    public var feedURL: URL
    /// The blog's home page.
    public var siteURL: URL
    /// The blog's title: the feed's title, else the site's host.
    public var title: String
    /// The platform the address belongs to.
    public var platform: BlogPlatform
    /// How the feed was found.
    public var method: Method
    /// The parsed feed (at most the discoverer's `maxItems` items).
    public var feed: Feed

    /// How a feed was found.
    public enum Method: String, Sendable, Hashable, Codable {
        /// From the platform's URL rules (``FeedURLRules``).
        case platformRule
        /// The address typed was the feed itself.
        case typedAddress
        /// From the page's `<link rel="alternate">`.
        case pageLink
        /// From a common feed path such as `/feed`.
        case commonPath
    }

    /// Creates a discovered feed.
    /// - Parameters:
    ///   - feedURL: The feed's address.
    ///   - siteURL: The blog's home page.
    ///   - title: The blog's title.
    ///   - platform: The platform.
    ///   - method: How it was found.
    ///   - feed: The parsed feed.
    public init(feedURL: URL, siteURL: URL, title: String, platform: BlogPlatform, method: Method, feed: Feed) {
        self.feedURL = feedURL
        self.siteURL = siteURL
        self.title = title
        self.platform = platform
        self.method = method
        self.feed = feed
    }
}
