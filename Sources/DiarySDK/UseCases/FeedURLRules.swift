import Foundation

/// Feed addresses derived from a blog address by the platforms' published URL rules, without any network access.
///
/// ``candidates(for:)`` drives both registration (each candidate is fetched and validated in order) and
/// autocomplete (``suggestions(forUserInput:)``).
///
/// | Platform | Blog address | Feed |
/// | --- | --- | --- |
/// | Tistory | `https://<id>.tistory.com` | `https://<id>.tistory.com/rss` |
/// | velog | `https://velog.io/@<id>` | `https://v2.velog.io/rss/<id>` |
/// | Naver Blog | `blog.naver.com/<id>`, `m.blog.naver.com/<id>`, `…/PostList.naver?blogId=<id>` | `https://rss.blog.naver.com/<id>.xml` |
/// | Medium | `medium.com/@<user>`, `medium.com/<publication>`, `<sub>.medium.com` | `medium.com/feed/@<user>`, `medium.com/feed/<publication>`, `<sub>.medium.com/feed` |
/// | WordPress.com | `<sub>.wordpress.com` | `/feed/` |
/// | GitHub Pages | `<user>.github.io[/<project>]` | `/feed.xml`, `/atom.xml` |
/// | Blogger | `<name>.blogspot.com` | `/feeds/posts/default` |
///
/// Brunch feeds (`https://brunch.co.kr/rss/@@<numeric id>`) cannot be derived from the `@<id>` address, so Brunch
/// blogs are found through the page's `<link rel="alternate">`.
public enum FeedURLRules {
    /// Paths most blog engines serve their feed at, tried against a site without a platform rule.
    public static let commonPaths = ["/feed", "/rss", "/feed.xml", "/atom.xml", "/rss.xml", "/index.xml", "/feed/atom", "/feeds/posts/default"]

    /// The feed addresses a platform's rules give for an address, best first; the address itself first when it
    /// already is a platform's feed address. Empty for ``BlogPlatform/other`` and for Brunch profile pages.
    /// - Parameter url: A blog or feed address.
    /// - Returns: The candidates, without duplicates.
    public static func candidates(for url: URL) -> [URL] {
        guard let host = url.host?.lowercased() else { return [] }
        let bare = host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
        let segments = url.path.split(separator: "/").map(String.init)
        var results: [String] = []
        switch BlogPlatform.of(url) {
        case .tistory:
            results = ["https://\(bare)/rss"]
        case .velog:
            if bare == "v2.velog.io", segments.first == "rss", segments.count >= 2 {
                results = ["https://v2.velog.io/rss/\(segments[1].hasPrefix("@") ? String(segments[1].dropFirst()) : segments[1])"]
            } else if let handle = segments.first, handle.hasPrefix("@"), handle.count > 1 {
                results = ["https://v2.velog.io/rss/\(handle.dropFirst())"]
            }
        case .naverBlog:
            if let id = naverBlogID(url, host: bare, segments: segments) { results = ["https://rss.blog.naver.com/\(id).xml"] }
        case .medium:
            results = mediumCandidates(host: bare, segments: segments)
        case .brunch:
            if segments.first == "rss", segments.count >= 2 { results = ["https://brunch.co.kr/rss/\(segments[1])"] }
        case .wordPress:
            results = ["https://\(bare)/feed/"]
        case .gitHubPages:
            let base = "https://\(bare)" + (segments.first.map { isFeedFile($0) ? "" : "/\($0)" } ?? "")
            results = [base + "/feed.xml", base + "/atom.xml"]
        case .blogger:
            results = ["https://\(bare)/feeds/posts/default"]
        case .other:
            results = []
        }
        return unique(results.compactMap { URL(string: $0) })
    }

    /// Feed addresses to offer while the user types, without fetching: the platform's candidates, else the typed
    /// address and the common feed paths of its site.
    /// - Parameter input: What the user typed so far (scheme optional).
    /// - Returns: Candidate feed addresses, best first; empty when the input is not a web address yet.
    public static func suggestions(forUserInput input: String) -> [URL] {
        guard let url = try? Validation.webURL(fromUserInput: input, field: "url"), let host = url.host, host.contains(".") else {
            return []
        }
        let platform = candidates(for: url)
        if !platform.isEmpty { return platform }
        if BlogPlatform.of(url) == .brunch { return [] }
        return unique([url] + commonCandidates(for: url))
    }

    /// The common feed paths under the typed path (when it has one) and under the site root.
    /// - Parameter url: A site address.
    /// - Returns: The addresses.
    public static func commonCandidates(for url: URL) -> [URL] {
        guard let scheme = url.scheme, let host = url.host else { return [] }
        let origin = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        if let last = path.split(separator: "/").last, last.contains(".") {
            path = String(path.dropLast(last.count + 1))
        }
        var results: [URL] = []
        if !path.isEmpty { results += commonPaths.prefix(4).compactMap { URL(string: origin + path + $0) } }
        results += commonPaths.compactMap { URL(string: origin + $0) }
        return unique(results)
    }

    /// The home page a platform's feed address belongs to, when the rules know it (the feed's own `<link>` is
    /// often the platform's front page rather than the blog).
    /// - Parameter feedURL: A feed address.
    /// - Returns: The blog's address, or `nil` when the rules do not know it.
    public static func siteURL(forFeed feedURL: URL) -> URL? {
        guard let host = feedURL.host?.lowercased() else { return nil }
        let segments = feedURL.path.split(separator: "/").map(String.init)
        if host == "v2.velog.io", segments.first == "rss", segments.count >= 2 {
            let id = segments[1].hasPrefix("@") ? String(segments[1].dropFirst()) : segments[1]
            return URL(string: "https://velog.io/@\(id)")
        }
        if host == "rss.blog.naver.com", let file = segments.first, file.hasSuffix(".xml") {
            return URL(string: "https://blog.naver.com/\(file.dropLast(4))")
        }
        return nil
    }

    // MARK: - Helpers

    private static func naverBlogID(_ url: URL, host: String, segments: [String]) -> String? {
        if host == "rss.blog.naver.com" {
            return segments.first.flatMap { $0.hasSuffix(".xml") ? String($0.dropLast(4)) : nil }
        }
        if let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
           let id = query.first(where: { $0.name.lowercased() == "blogid" })?.value, !id.isEmpty {
            return id
        }
        guard let first = segments.first, !first.contains("."), first.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            return nil
        }
        return first
    }

    private static func mediumCandidates(host: String, segments: [String]) -> [String] {
        if host != "medium.com" { return ["https://\(host)/feed"] }
        guard let first = segments.first else { return [] }
        if first == "feed", segments.count >= 2 { return ["https://medium.com/feed/\(segments[1])"] }
        if first == "m" || first == "tag" || first == "search" { return [] }
        return ["https://medium.com/feed/\(first)"]
    }

    private static func isFeedFile(_ segment: String) -> Bool {
        segment.hasSuffix(".xml") || segment.hasSuffix(".json") || segment.hasSuffix(".rss") || segment.hasSuffix(".atom")
    }

    private static func unique(_ urls: [URL]) -> [URL] {
        var seen = Set<String>()
        return urls.filter { seen.insert($0.absoluteString).inserted }
    }
}
