import Foundation

/// Finds and validates the feed behind whatever a user typed: a blog address or a feed address, with or without
/// a scheme.
///
/// Candidates are tried in order, each fetched and parsed before it is accepted:
/// 1. the platform's URL rules (``FeedURLRules``: Tistory, velog, Naver Blog, Medium, WordPress.com, GitHub Pages,
///    Blogger);
/// 2. the typed address itself, when it is a feed; when it is a page, the feeds its HTML advertises with
///    `<link rel="alternate">` (how Brunch and self-hosted blogs are found);
/// 3. common feed paths (``FeedURLRules/commonPaths``) under the typed path and the site root.
///
/// ```swift
/// let discoverer = FeedDiscoverer(fetcher: URLSessionFeedFetcher())
/// let found = try await discoverer.discover("alice.tistory.com")   // https://alice.tistory.com/rss
/// ```
public struct FeedDiscoverer: Sendable {
    /// Where documents come from.
    public let fetcher: any FeedFetching
    /// How candidates are parsed (by default stopping after 50 items: validation needs no more).
    public let parser: FeedParser

    /// Creates a discoverer.
    /// - Parameters:
    ///   - fetcher: Where documents come from.
    ///   - parser: How candidates are parsed.
    public init(fetcher: any FeedFetching, parser: FeedParser = FeedParser(configuration: .init(maxItems: 50))) {
        self.fetcher = fetcher
        self.parser = parser
    }

    /// Finds the feed for a typed address.
    /// - Parameter input: A blog or feed address as typed (`"alice.tistory.com"`, `"https://example.com/feed.xml"`).
    /// - Returns: The validated feed with the blog's title and home page.
    /// - Throws: `.invalidInput` for `"url"` when the input is not a web address or no candidate is an RSS, Atom or
    ///   JSON feed (the message names the HTTP status when the typed address answered an error, such as
    ///   `HTTP 404`); `.unavailable` when the site cannot be reached at all; `.cancelled` when cancelled.
    public func discover(_ input: String) async throws -> DiscoveredFeed {
        let typed = try Validation.webURL(fromUserInput: input, field: "url")
        var search = Search(typed: typed)
        for candidate in FeedURLRules.candidates(for: typed) {
            if let found = try await attempt(candidate, method: .platformRule, in: &search) { return found }
        }
        if let found = try await attemptTypedAddress(in: &search) { return found }
        if let unreachable = search.unreachable { throw unreachable }
        for candidate in FeedURLRules.commonCandidates(for: search.pageURL ?? typed) {
            if let found = try await attempt(candidate, method: .commonPath, in: &search) { return found }
        }
        let message =
            if let status = search.typedStatus {
                "\(typed.absoluteString) answered HTTP \(status), and no RSS, Atom or JSON feed found at the usual feed paths either"
            } else {
                "no RSS, Atom or JSON feed found at \(typed.absoluteString)"
            }
        throw DiaryError(.invalidInput, message, field: "url", reason: .invalidReference)
    }

    /// Fetches and parses one address, requiring it to be a feed.
    /// - Parameter url: The feed address.
    /// - Returns: The feed and the document it came from.
    /// - Throws: The fetcher's `DiaryError`, or `.invalidInput` for `"feedURL"` when the document is not a feed.
    public func validate(_ url: URL) async throws -> (feed: Feed, document: FetchedFeedDocument) {
        guard case .fetched(let document) = try await fetcher.fetch(FeedFetchRequest(url: url)) else {
            throw DiaryError(.unavailable, "\(url.absoluteString) answered 304 to an unconditional request")
        }
        return (try FeedDocumentReader.feed(from: document, parser: parser), document)
    }

    // MARK: - Steps

    private struct Search {
        let typed: URL
        var tried = Set<String>()
        /// The typed page after redirects, when it was an HTML page.
        var pageURL: URL?
        /// Set when the typed address could not be reached at all (no HTTP status): other paths would fail too.
        var unreachable: DiaryError?
        /// The HTTP error status the typed address answered, if it answered one.
        var typedStatus: Int?
    }

    private func attemptTypedAddress(in search: inout Search) async throws -> DiscoveredFeed? {
        guard search.tried.insert(search.typed.absoluteString).inserted else { return nil }
        let document: FetchedFeedDocument
        do {
            guard case .fetched(let fetched) = try await fetcher.fetch(FeedFetchRequest(url: search.typed)) else { return nil }
            document = fetched
        } catch let error as DiaryError {
            if error.code == .cancelled { throw error }
            if error.code == .unavailable && error.httpStatus == nil { search.unreachable = error }
            search.typedStatus = error.httpStatus.flatMap { $0 >= 400 ? $0 : nil }
            return nil
        }
        if !document.isHTML, let feed = try? FeedDocumentReader.feed(from: document, parser: parser) {
            return found(feed, at: document.finalURL, method: .typedAddress, search: search)
        }
        search.pageURL = document.finalURL
        let html = String(decoding: document.data, as: UTF8.self)
        for link in FeedDiscovery.feedLinks(inHTML: html, baseURL: document.finalURL) {
            if let found = try await attempt(link, method: .pageLink, in: &search) { return found }
        }
        return nil
    }

    private func attempt(_ url: URL, method: DiscoveredFeed.Method, in search: inout Search) async throws -> DiscoveredFeed? {
        guard search.tried.insert(url.absoluteString).inserted else { return nil }
        do {
            let (feed, document) = try await validate(url)
            return found(feed, at: document.finalURL, method: method, search: search)
        } catch let error as DiaryError {
            if error.code == .cancelled { throw error }
            return nil
        }
    }

    private func found(_ feed: Feed, at feedURL: URL, method: DiscoveredFeed.Method, search: Search) -> DiscoveredFeed {
        let typedIsFeed = method == .typedAddress || search.typed.absoluteString == feedURL.absoluteString
        let site =
            FeedURLRules.siteURL(forFeed: feedURL) ?? search.pageURL ?? (typedIsFeed ? nil : search.typed)
            ?? feed.link.flatMap { (try? Validation.webURL($0, field: "siteURL")) == nil ? nil : $0 }
            ?? URL(string: "\(feedURL.scheme ?? "https")://\(feedURL.host ?? "")\(feedURL.port.map { ":\($0)" } ?? "")/")
            ?? feedURL
        let rawTitle = feed.title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let title = String((rawTitle.isEmpty ? (site.host ?? feedURL.absoluteString) : rawTitle).prefix(Validation.maximumTitleLength))
        return DiscoveredFeed(
            feedURL: feedURL, siteURL: site, title: title, platform: BlogPlatform.of(search.typed), method: method, feed: feed)
    }
}
