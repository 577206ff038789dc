import Foundation

extension FeedXMLMapper {
    static func isCore(_ node: FeedXMLNode) -> Bool { node.ns == .none || node.ns == .rss }

    /// Maps RSS 0.9x / 1.0 / 2.0: `channel` holds the metadata, items live in the channel (RSS 2.0) or the root (RDF).
    mutating func mapRSS(channel: FeedXMLNode, itemContainers: [FeedXMLNode], format: FeedFormat, root: FeedXMLNode) -> Feed {
        var feed = Feed(format: format)
        feed.language = root.language
        var itunesAuthor: FeedPerson?
        var fallbackSummary: String?
        for child in channel.elements {
            switch (child.ns, child.name) {
            case (.none, .title), (.rss, .title), (.dc, .title):
                if feed.title == nil { feed.title = FeedText.collapsed(child.text) }
            case (.none, .link), (.rss, .link):
                if feed.link == nil, let href = url(child.text, child) {
                    feed.link = href
                    feed.links.append(FeedLink(href: href))
                }
            case (.none, .description), (.rss, .description), (.dc, .description):
                if let summary = FeedText.trimmed(FeedText.content(of: child)) { feed.summary = summary }
            case (.itunes, .summary), (.itunes, .subtitle):
                fallbackSummary = fallbackSummary ?? FeedText.trimmed(child.text)
            case (.none, .language), (.rss, .language), (.dc, .language):
                if let language = FeedText.trimmed(child.text) { feed.language = language }
            case (.none, .lastbuilddate), (.rss, .lastbuilddate), (.dc, .date), (.dcterms, .modified), (.atom10, .updated):
                if feed.updated == nil { feed.updated = date(child) }
            case (.none, .pubdate), (.rss, .pubdate), (.dcterms, .issued), (.dcterms, .created):
                if feed.published == nil { feed.published = date(child) }
            case (.none, .managingeditor), (.rss, .managingeditor), (.none, .author), (.rss, .author), (.dc, .creator), (.dc, .author):
                if let person = person(fromRSS: child.text) { feed.authors.append(person) }
            case (.itunes, .author):
                itunesAuthor = person(fromRSS: child.text)
            case (.none, .image), (.rss, .image):
                if feed.imageURL == nil, let imageURL = child.elements.first(where: { Self.isCore($0) && $0.localName == "url" }) {
                    feed.imageURL = url(imageURL.text, imageURL)
                }
            case (.itunes, .image):
                if feed.imageURL == nil { feed.imageURL = url(child.attribute("href") ?? child.text, child) }
            case (.none, .category), (.rss, .category), (.dc, .subject):
                if let term = FeedText.collapsed(child.text) {
                    feed.categories.append(FeedCategory(term: term, scheme: child.attribute("domain")))
                }
            case (.itunes, .category):
                appendITunesCategories(child, into: &feed.categories)
            case (.none, .tags), (.rss, .tags), (.itunes, .keywords):
                appendKeywords(child, into: &feed.categories)
            case (.atom10, .link):
                if let link = atomLink(child) {
                    feed.links.append(link)
                    if link.rel == "self", feed.feedURL == nil { feed.feedURL = link.href }
                    if link.rel == "alternate", feed.link == nil { feed.link = link.href }
                }
            default:
                continue
            }
        }
        if feed.authors.isEmpty, let itunesAuthor { feed.authors.append(itunesAuthor) }
        if feed.summary == nil { feed.summary = fallbackSummary }
        // An element has one parent, so the items of distinct containers are distinct: only a container named twice
        // (the channel falling back to the root) is skipped.
        var containers: [FeedXMLNode] = []
        for container in itemContainers where !containers.contains(where: { $0.index == container.index }) {
            containers.append(container)
        }
        // Names are interned byte for byte, so an element is named exactly `item` when its name has the index of that
        // name (compared as an integer instead of reading and comparing the string per child).
        let itemName = Int32(root.tree.names.firstIndex(of: "item") ?? -1)
        var itemCount = 0
        for container in containers {
            for child in container.elements where child.nameIndex == itemName && Self.isCore(child) { itemCount += 1 }
        }
        // Mapped in place, each item created in its slot: a returned item would be copied into the array and destroyed,
        // and even `append(FeedItem())` copies the new item in.
        feed.items = Array(unsafeUninitializedCapacity: itemCount) { slots, initialized in
            guard let base = slots.baseAddress else { return }
            for container in containers {
                for child in container.elements where child.nameIndex == itemName && Self.isCore(child) {
                    let slot = base + initialized
                    slot.initialize(to: FeedItem())
                    initialized += 1
                    mapRSSItem(child, into: &slot.pointee)
                }
            }
        }
        return feed
    }

    /// The text of `node`; `shared` itself when it was read from the same bytes (equal strings, one allocation).
    static func text(of node: FeedXMLNode, sharing shared: (range: Range<Int>, string: String)?) -> String {
        let range = node.textRange
        guard let shared, shared.range.count == range.count, !range.isEmpty else { return node.text }
        let same = node.tree.text.withUnsafeBufferPointer { b in
            memcmp(b.baseAddress! + range.lowerBound, b.baseAddress! + shared.range.lowerBound, range.count) == 0
        }
        return same ? shared.string : node.text
    }

    /// A comma-separated keyword list (`itunes:keywords`, the non-standard `<tags>`), one category per non-empty term;
    /// iTunes keywords get the iTunes scheme, as feedparser gives them.
    func appendKeywords(_ node: FeedXMLNode, into categories: inout [FeedCategory]) {
        let scheme = node.ns == .itunes ? "http://www.itunes.com/" : nil
        for term in node.text.split(separator: ",") {
            if let term = FeedText.collapsed(String(term)) { categories.append(FeedCategory(term: term, scheme: scheme)) }
        }
    }

    /// `itunes:category` and its nested subcategories, in document order (iterative: no stack use per level).
    private func appendITunesCategories(_ node: FeedXMLNode, into categories: inout [FeedCategory]) {
        if let term = FeedText.collapsed(node.attribute("text")) {
            categories.append(FeedCategory(term: term, scheme: "http://www.itunes.com/"))
        }
        var levels: [FeedXMLNode.Elements] = [node.elements]
        while !levels.isEmpty {
            guard let child = levels[levels.count - 1].next() else {
                levels.removeLast()
                continue
            }
            guard child.ns == .itunes, child.localName == "category" else { continue }
            if let term = FeedText.collapsed(child.attribute("text")) {
                categories.append(FeedCategory(term: term, scheme: "http://www.itunes.com/"))
            }
            levels.append(child.elements)
        }
    }

    mutating func mapRSSItem(_ node: FeedXMLNode, into item: inout FeedItem) {
        var guidNode: FeedXMLNode?
        /// The text the item's link was read from: a guid of the same bytes (a permalink, the common case) shares its
        /// storage instead of allocating a copy.
        var linkText: (range: Range<Int>, string: String)?
        var itunesAuthor: FeedPerson?
        var alternate: String?
        var fallbackSummary: String?
        var fallbackTitle: String?
        reserveCategories(of: node, in: &item)
        for child in node.elements {
            switch (child.ns, child.name) {
            case (.none, .title), (.rss, .title), (.dc, .title):
                if item.title == nil { item.title = FeedText.collapsed(FeedText.content(of: child)) }
            case (.none, .link), (.rss, .link):
                if item.linkText == nil, case let text = child.text, let href = urlText(text, child) {
                    item.linkText = href
                    linkText = (child.textRange, text)
                    // An array literal allocates the one element exactly; `append` to an empty array takes the
                    // growth path.
                    if item.links.isEmpty { item.links = [FeedLink(hrefText: href)] } else { item.links.append(FeedLink(hrefText: href)) }
                }
            case (.none, .description), (.rss, .description), (.dc, .description):
                if item.summary == nil { item.summary = FeedText.trimmed(FeedText.content(of: child)) }
            case (.itunes, .summary), (.itunes, .subtitle):
                if child.localName == "summary" || fallbackSummary == nil { fallbackSummary = FeedText.trimmed(child.text) }
            case (.media, .title):
                fallbackTitle = fallbackTitle ?? FeedText.collapsed(child.text)
            case (.none, .fullitem), (.rss, .fullitem):
                if item.content == nil {
                    item.content = FeedText.trimmed(FeedText.content(of: child))
                    item.contentType = .html
                }
            case (.itunes, .category):
                var categories: [FeedCategory] = []
                appendITunesCategories(child, into: &categories)
                item.categoryDetails += categories
            case (.content, .encoded):
                if item.content == nil {
                    item.content = FeedText.trimmed(FeedText.content(of: child))
                    item.contentType = .html
                }
            case (.xhtml, .body), (.xhtml, .div):
                if item.content == nil {
                    item.content = FeedText.trimmed(FeedText.innerMarkup(of: child))
                    item.contentType = .xhtml
                }
            case (.none, .body), (.rss, .body):
                // Unnamespaced `<body>` (and `xhtml:body` whose prefix is undeclared): HTML, escaped or as markup.
                if item.content == nil {
                    item.content = FeedText.trimmed(FeedText.content(of: child))
                    item.contentType = .html
                }
            case (.none, .tags), (.rss, .tags), (.itunes, .keywords):
                var keywords: [FeedCategory] = []
                appendKeywords(child, into: &keywords)
                item.categoryDetails += keywords
            case (.none, .guid), (.rss, .guid):
                guidNode = child
            case (.none, .pubdate), (.rss, .pubdate), (.dcterms, .issued), (.dcterms, .created), (.atom10, .published):
                if item.published == nil { item.published = date(child) }
            case (.dc, .date), (.dcterms, .modified), (.atom10, .updated):
                if item.updated == nil { item.updated = date(child) }
            case (.none, .author), (.rss, .author), (.dc, .creator), (.dc, .author):
                if let person = person(fromRSS: child.text) {
                    if item.authors.isEmpty { item.authors = [person] } else { item.authors.append(person) }
                }
            case (.atom10, .author):
                if let person = atomPerson(child) { item.authors.append(person) }
            case (.itunes, .author):
                itunesAuthor = person(fromRSS: child.text)
            case (.none, .category), (.rss, .category), (.dc, .subject):
                if let term = FeedText.collapsed(child.text) {
                    item.categoryDetails.append(FeedCategory(term: term, scheme: child.attribute("domain")))
                }
            case (.none, .enclosure), (.rss, .enclosure):
                if let href = url(child.attribute("url"), child) {
                    let enclosure = FeedEnclosure(url: href, type: FeedText.trimmed(child.attribute("type")),
                                                  length: int64(child.attribute("length")))
                    item.enclosures.append(enclosure)
                    // Like an Atom `rel="enclosure"` link, in document order among the item's links.
                    item.links.append(FeedLink(href: href, rel: "enclosure", type: enclosure.type, length: enclosure.length))
                }
            case (.none, .comments), (.rss, .comments):
                if item.commentsURL == nil { item.commentsURL = url(child.text, child) }
            case (.atom10, .link):
                if let link = atomLink(child) {
                    item.links.append(link)
                    if link.rel == "alternate", alternate == nil { alternate = link.hrefText }
                    if link.rel == "enclosure" {
                        item.enclosures.append(FeedEnclosure(url: link.href, type: link.type, length: link.length))
                    }
                }
            case (.itunes, .duration):
                item.itunesDuration = Self.duration(child.text)
            case (.itunes, .episode):
                item.itunesEpisode = int(child.text)
            case (.itunes, .explicit):
                item.itunesExplicit = Self.explicitFlag(child.text)
            case (.itunes, .image):
                item.itunesImageURL = url(child.attribute("href") ?? child.text, child)
            default:
                continue
            }
        }
        media(in: node, into: &item)
        if item.summary == nil { item.summary = fallbackSummary }
        if item.title == nil { item.title = fallbackTitle }
        if item.authors.isEmpty, let itunesAuthor { item.authors.append(itunesAuthor) }
        if let guidNode, let guid = FeedText.trimmed(Self.text(of: guidNode, sharing: linkText)) {
            item.id = guid
            // `"true"` as written (almost every feed) compares as one small string, without trimming.
            let permaLink = guidNode.attribute("isPermaLink").map { $0 == "true" || !FeedText.isASCIICaseInsensitive(FeedText.trim($0), "false") } ?? true
            item.guidIsPermaLink = permaLink
            if item.linkText == nil, permaLink, FeedText.contains(guid, "://") || guid.hasPrefix("/") {
                item.linkText = urlText(guid, guidNode)
            }
        } else if item.id == nil, let about = node.attribute("about", namespace: "http://www.w3.org/1999/02/22-rdf-syntax-ns#") {
            item.id = FeedText.trimmed(about)
        }
        if item.linkText == nil { item.linkText = alternate }
    }
}
