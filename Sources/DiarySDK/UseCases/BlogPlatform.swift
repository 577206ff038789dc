import Foundation

/// The blogging platforms whose feed addresses ``FeedURLRules`` knows without fetching anything.
public enum BlogPlatform: String, Sendable, Hashable, Codable, CaseIterable {
    /// Tistory (`<id>.tistory.com`); feed `https://<id>.tistory.com/rss`.
    case tistory
    /// velog (`velog.io/@<id>`); feed `https://v2.velog.io/rss/<id>`.
    case velog
    /// Naver Blog (`blog.naver.com/<id>`); feed `https://rss.blog.naver.com/<id>.xml`.
    case naverBlog
    /// Medium (`medium.com/@<user>`, `<sub>.medium.com`); feed under `/feed`.
    case medium
    /// Brunch (`brunch.co.kr/@<id>`); the feed needs a numeric id found only in the page.
    case brunch
    /// WordPress.com (`<sub>.wordpress.com`); feed `/feed/`. Self-hosted WordPress is found by its page or `/feed/`.
    case wordPress
    /// GitHub Pages (`<user>.github.io`), usually Jekyll; feed `/feed.xml` (jekyll-feed) or `/atom.xml`.
    case gitHubPages
    /// Blogger (`<name>.blogspot.com`); feed `/feeds/posts/default`.
    case blogger
    /// Any other site: found through the page's `<link rel="alternate">` or common feed paths.
    case other

    /// The platform an address belongs to, judged from its host (and path for Medium publications).
    /// - Parameter url: A blog or feed address.
    /// - Returns: The platform, or ``other``.
    public static func of(_ url: URL) -> BlogPlatform {
        guard let host = url.host?.lowercased() else { return .other }
        let bare = host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
        if bare.hasSuffix(".tistory.com") { return .tistory }
        if bare == "velog.io" || bare == "v2.velog.io" { return .velog }
        if bare == "blog.naver.com" || bare == "m.blog.naver.com" || bare == "rss.blog.naver.com" { return .naverBlog }
        if bare == "medium.com" || bare.hasSuffix(".medium.com") { return .medium }
        if bare == "brunch.co.kr" || bare == "m.brunch.co.kr" { return .brunch }
        if bare.hasSuffix(".wordpress.com") { return .wordPress }
        if bare.hasSuffix(".github.io") { return .gitHubPages }
        if bare.contains(".blogspot.") || bare == "blogger.com" { return .blogger }
        return .other
    }
}
