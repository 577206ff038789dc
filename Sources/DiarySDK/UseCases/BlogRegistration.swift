import Foundation

/// Registers, re-points, renames, deletes and promotes a user's blogs, finding feeds from whatever the user typed.
///
/// ```swift
/// let registration = BlogRegistration(blogs: sdk.blogs, fetcher: URLSessionFeedFetcher())
/// let blog = try await registration.register("velog.io/@alice")      // feed https://v2.velog.io/rss/alice
/// let hints = registration.suggestions(for: "alice.tistory")          // autocomplete, no network
/// ```
///
/// Registration validates the feed by fetching and parsing it, then stores the blog with the feed's title and home
/// page through the ``BlogRepository``, so it works on every backend. Import the posts with ``BlogSync``.
public struct BlogRegistration: Sendable {
    /// Where blogs are stored.
    public let blogs: any BlogRepository
    /// How feeds are found.
    public let discoverer: FeedDiscoverer

    /// Creates a registration use case.
    /// - Parameters:
    ///   - blogs: Where blogs are stored (a device's `sdk.blogs`).
    ///   - discoverer: How feeds are found.
    public init(blogs: any BlogRepository, discoverer: FeedDiscoverer) {
        self.blogs = blogs
        self.discoverer = discoverer
    }

    /// Creates a registration use case that fetches with `fetcher`.
    /// - Parameters:
    ///   - blogs: Where blogs are stored.
    ///   - fetcher: Where documents come from.
    public init(blogs: any BlogRepository, fetcher: any FeedFetching) {
        self.init(blogs: blogs, discoverer: FeedDiscoverer(fetcher: fetcher))
    }

    /// Finds the feed behind `input`, validates it and registers the blog for the signed-in user.
    /// - Parameters:
    ///   - input: A blog or feed address as typed.
    ///   - title: A title to use instead of the feed's.
    ///   - isPrimary: Make it the user's primary blog (the first blog always is).
    /// - Returns: The registered blog.
    /// - Throws: `.invalidInput` for `"url"` when there is no feed at the address; `.conflict` for `"feedURL"` when the
    ///   user already registered that feed; `.unavailable` when the site cannot be reached; `.unauthenticated`.
    public func register(_ input: String, title: String? = nil, isPrimary: Bool = false) async throws -> Blog {
        let found = try await discoverer.discover(input)
        let chosen = title.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        return try await blogs.register(
            BlogDraft(title: chosen ?? found.title, siteURL: found.siteURL, feedURL: found.feedURL, isPrimary: isPrimary))
    }

    /// Feed addresses to offer while the user types; no network access.
    /// - Parameter input: What the user typed so far.
    /// - Returns: Candidate feed addresses, best first.
    public func suggestions(for input: String) -> [URL] {
        FeedURLRules.suggestions(forUserInput: input)
    }

    /// Points a blog at the feed behind a newly typed address (the sync state starts over).
    /// - Parameters:
    ///   - id: The blog.
    ///   - input: The new blog or feed address.
    /// - Returns: The updated blog.
    /// - Throws: As ``register(_:title:isPrimary:)``, plus `.notFound` / `.forbidden` for someone else's blog.
    public func changeAddress(of id: Blog.ID, to input: String) async throws -> Blog {
        let found = try await discoverer.discover(input)
        return try await blogs.updateBlog(id, BlogEdit(siteURL: found.siteURL, feedURL: found.feedURL))
    }

    /// Renames a blog.
    /// - Parameters:
    ///   - id: The blog.
    ///   - title: The new title.
    /// - Returns: The updated blog.
    /// - Throws: `.invalidInput` for `"title"`, `.notFound`, `.forbidden`.
    public func rename(_ id: Blog.ID, to title: String) async throws -> Blog {
        try await blogs.updateBlog(id, BlogEdit(title: title))
    }

    /// Makes a blog the user's primary blog.
    /// - Parameter id: The blog.
    /// - Returns: The blog, now primary.
    /// - Throws: `.notFound`, `.forbidden`.
    public func makePrimary(_ id: Blog.ID) async throws -> Blog {
        try await blogs.setPrimary(id)
    }

    /// Deletes a blog registration (imported posts stay).
    /// - Parameter id: The blog.
    /// - Throws: `.notFound`, `.forbidden`.
    public func delete(_ id: Blog.ID) async throws {
        try await blogs.deleteBlog(id)
    }
}
