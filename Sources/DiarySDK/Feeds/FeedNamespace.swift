import Foundation

/// The namespaces the parser understands, identified by URI (never by prefix).
enum FeedNamespace: Sendable {
    case none, rss, rdf, content, dc, dcterms, atom10, atom03, media, itunes, xhtml, xml, other

    static func classify(_ uri: String) -> FeedNamespace {
        if uri.isEmpty { return .none }
        var u = uri.lowercased()
        if u.hasPrefix("https://") { u = "http://" + u.dropFirst(8) }
        while u.hasSuffix("/") || u.hasSuffix("#") { u.removeLast() }
        switch u {
        case "http://purl.org/rss/1.0", "http://my.netscape.com/rdf/simple/0.9",
             "http://backend.userland.com/rss2", "http://blogs.law.harvard.edu/tech/rss",
             "http://backend.userland.com/rss", "http://purl.org/net/rss1.1", "http://backend.userland.com/rss2.1":
            return .rss
        case "http://www.w3.org/1999/02/22-rdf-syntax-ns": return .rdf
        case "http://purl.org/rss/1.0/modules/content": return .content
        case "http://purl.org/dc/elements/1.1": return .dc
        case "http://purl.org/dc/terms": return .dcterms
        case "http://www.w3.org/2005/atom": return .atom10
        case "http://purl.org/atom/ns", "http://purl.org/echo", "http://purl.org/pie", "http://example.com/newformat",
             "http://example.com/necho":
            return .atom03
        case "http://search.yahoo.com/mrss", "http://tools.search.yahoo.com/mrss": return .media
        case "http://www.itunes.com/dtds/podcast-1.0.dtd", "http://www.itunes.com/dtds/podcast-1.0": return .itunes
        case "http://www.w3.org/1999/xhtml": return .xhtml
        case "http://www.w3.org/xml/1998/namespace": return .xml
        default: return .other
        }
    }
}
