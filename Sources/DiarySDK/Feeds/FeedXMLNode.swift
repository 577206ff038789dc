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

/// A node of the lightweight document tree built from XMLParser events.
final class FeedXMLNode {
    enum Child {
        case element(FeedXMLNode)
        case text(String)
    }

    /// An attribute with its namespace resolved through the in-scope prefix mappings.
    struct Attribute {
        var qualifiedName: String
        var localName: String
        var namespace: String
        var value: String
    }

    let localName: String
    let namespace: String
    let qualifiedName: String
    let ns: FeedNamespace
    let attributes: [Attribute]
    /// Prefix declarations made on this element (prefix → URI), for re-serialisation.
    let declarations: [(String, String)]
    /// The effective base URL (inherited `xml:base`, resolved against the document URL).
    let base: URL?
    /// The effective `xml:lang`.
    let language: String?
    var children: [Child] = []
    let line: Int

    init(localName: String, namespace: String, qualifiedName: String, ns: FeedNamespace? = nil, attributes: [Attribute],
         declarations: [(String, String)], base: URL?, language: String?, line: Int) {
        self.localName = localName
        self.namespace = namespace
        self.qualifiedName = qualifiedName
        self.ns = ns ?? FeedNamespace.classify(namespace)
        self.attributes = attributes
        self.declarations = declarations
        self.base = base
        self.language = language
        self.line = line
    }

    /// The value of an attribute, matched by local name and namespace URI ("" = no namespace).
    func attribute(_ localName: String, namespace: String = "") -> String? {
        attributes.first { $0.localName == localName && $0.namespace == namespace }?.value
    }

    /// The value of an attribute by local name, matched case-insensitively and whatever its namespace.
    func anyAttribute(_ localName: String) -> String? {
        attributes.first { $0.localName.caseInsensitiveCompare(localName) == .orderedSame }?.value
    }

    /// The child elements, in order.
    var elements: [FeedXMLNode] {
        children.compactMap { if case .element(let node) = $0 { return node } else { return nil } }
    }

    /// The first child element with the given local name whose namespace satisfies `ns`.
    func first(_ name: String, _ ns: FeedNamespace) -> FeedXMLNode? {
        for case .element(let node) in children where node.localName == name && node.ns == ns { return node }
        return nil
    }

    /// All child elements with the given local name and namespace.
    func all(_ name: String, _ ns: FeedNamespace) -> [FeedXMLNode] {
        elements.filter { $0.localName == name && $0.ns == ns }
    }

    /// Whether the element has element children.
    var hasElementChildren: Bool {
        children.contains { if case .element = $0 { return true } else { return false } }
    }

    /// The concatenated character data of this element and all descendants.
    var text: String {
        var out = ""
        appendText(to: &out)
        return out
    }

    private func appendText(to out: inout String) {
        for child in children {
            switch child {
            case .text(let string): out += string
            case .element(let node): node.appendText(to: &out)
            }
        }
    }
}
