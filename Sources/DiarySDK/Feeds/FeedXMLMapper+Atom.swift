import Foundation

extension FeedXMLMapper {
    /// Maps an Atom 1.0 or 0.3 `feed`; Atom elements are those in the root element's namespace.
    mutating func mapAtom(feedNode: FeedXMLNode, format: FeedFormat) -> Feed {
        let atom = feedNode.ns
        var feed = Feed(format: format)
        feed.language = feedNode.language
        var entries = 0
        for child in feedNode.elements where child.localName == "entry" { entries += 1 }
        feed.items.reserveCapacity(entries)
        for child in feedNode.elements {
            guard child.ns == atom else {
                switch (child.ns, child.localName) {
                case (.itunes, "image"):
                    if feed.imageURL == nil { feed.imageURL = url(child.attribute("href"), child) }
                case (.dc, "language"):
                    if feed.language == nil { feed.language = FeedText.trimmed(child.text) }
                default: break
                }
                continue
            }
            switch child.localName {
            case "title":
                if feed.title == nil { feed.title = FeedText.collapsed(atomText(child).value) }
            case "subtitle", "tagline":
                if feed.summary == nil { feed.summary = FeedText.trimmed(atomText(child).value) }
            case "id":
                if feed.id == nil { feed.id = FeedText.trimmed(child.text) }
            case "link":
                if let link = atomLink(child) {
                    feed.links.append(link)
                    if link.rel == "alternate", feed.link == nil { feed.link = link.href }
                    if link.rel == "self", feed.feedURL == nil { feed.feedURL = link.href }
                }
            case "updated", "modified":
                if feed.updated == nil { feed.updated = date(child) }
            case "published", "issued", "created":
                if feed.published == nil { feed.published = date(child) }
            case "author":
                if let person = atomPerson(child) { feed.authors.append(person) }
            case "category":
                if let category = atomCategory(child) { feed.categories.append(category) }
            case "logo":
                feed.imageURL = url(child.text, child) ?? feed.imageURL
            case "icon":
                if feed.imageURL == nil { feed.imageURL = url(child.text, child) }
            case "entry":
                feed.items.append(FeedItem())
                mapAtomEntry(child, atom: atom, into: &feed.items[feed.items.count - 1])
            default:
                continue
            }
        }
        return feed
    }

    mutating func mapAtomEntry(_ node: FeedXMLNode, atom: FeedNamespace, into item: inout FeedItem) {
        reserveCategories(of: node, in: &item)
        for child in node.elements {
            guard child.ns == atom else {
                switch (child.ns, child.localName) {
                case (.dc, "creator"):
                    if let person = person(fromRSS: child.text) { item.authors.append(person) }
                case (.dc, "date"):
                    if item.updated == nil { item.updated = date(child) }
                case (.dc, "subject"):
                    if let term = FeedText.collapsed(child.text) {
                        item.categoryDetails.append(FeedCategory(term: term))
                    }
                case (.itunes, "duration"): item.itunesDuration = Self.duration(child.text)
                case (.itunes, "episode"): item.itunesEpisode = int(child.text)
                case (.itunes, "explicit"): item.itunesExplicit = Self.explicitFlag(child.text)
                case (.itunes, "image"): item.itunesImageURL = url(child.attribute("href"), child)
                default: break
                }
                continue
            }
            switch child.localName {
            case "id":
                if item.id == nil { item.id = FeedText.trimmed(child.text) }
            case "title":
                if item.title == nil { item.title = FeedText.collapsed(atomText(child).value) }
            case "link":
                guard let link = atomLink(child) else { continue }
                item.links.append(link)
                if link.rel == "alternate", item.linkText == nil { item.linkText = link.hrefText }
                if link.rel == "enclosure" {
                    item.enclosures.append(FeedEnclosure(url: link.href, type: link.type, length: link.length))
                }
                if link.rel == "replies", item.commentsURL == nil, (link.type.map { FeedText.contains($0, "html") } ?? true) {
                    item.commentsURL = link.href
                }
            case "summary":
                if item.summary == nil { item.summary = FeedText.trimmed(atomText(child).value) }
            case "content":
                if item.content == nil {
                    let text = atomText(child)
                    item.content = FeedText.trimmed(text.value)
                    item.contentType = text.type
                }
            case "published", "issued", "created":
                item.published = date(child) ?? item.published
            case "updated", "modified":
                item.updated = date(child) ?? item.updated
            case "author":
                if let person = atomPerson(child) { item.authors.append(person) }
            case "category":
                if let category = atomCategory(child) {
                    item.categoryDetails.append(category)
                }
            default:
                continue
            }
        }
        media(in: node, into: &item)
        if item.linkText == nil, item.links.allSatisfy({ $0.rel != "alternate" }) {
            item.linkText = item.links.first(where: { $0.rel != "self" && $0.rel != "enclosure" && $0.rel != "replies" })?.hrefText
        }
    }

    /// An Atom `link` (also used for `atom:link` inside RSS); `nil` without a usable URL.
    ///
    /// The URL is the `href` attribute; without one (or with an empty one), the element's text when that is a single
    /// token (Atom 0.3's form, which real Atom 1.0 feeds use too). An empty `href` with no text is the empty relative
    /// reference, which RFC 3986 (§5.2) resolves to the base URL (the element's `xml:base` or the document's URL).
    func atomLink(_ node: FeedXMLNode) -> FeedLink? {
        let attribute = node.attribute("href")
        let href: String
        if let value = FeedText.trimmed(attribute), let resolved = urlText(value, node) {
            href = resolved
        } else if !node.hasElementChildren, let text = FeedText.trimmed(node.text),
                  node.ns == .atom03 || !text.utf8.contains(where: FeedText.isASCIISpace), let resolved = urlText(text, node) {
            href = resolved
        } else if let attribute, FeedText.trimmed(attribute) == nil, let base = node.base {
            href = base.absoluteURL.absoluteString
        } else {
            return nil
        }
        let rel = FeedText.trimmed(node.attribute("rel")) ?? "alternate"
        return FeedLink(hrefText: href, rel: rel, type: FeedText.trimmed(node.attribute("type")),
                        title: FeedText.trimmed(node.attribute("title")), length: int64(node.attribute("length")))
    }

    /// An Atom person construct (`name`, `email`, `uri` — or Atom 0.3's `url`).
    func atomPerson(_ node: FeedXMLNode) -> FeedPerson? {
        var person = FeedPerson()
        for child in node.elements {
            switch child.localName {
            case "name": person.name = FeedText.collapsed(child.text)
            case "email": person.email = FeedText.trimmed(child.text)
            case "uri", "url", "homepage": person.url = url(child.text, child)
            default: continue
            }
        }
        if person.name == nil, person.email == nil, person.url == nil {
            guard let name = FeedText.collapsed(node.text) else { return nil }
            person.name = name
        }
        return person
    }

    func atomCategory(_ node: FeedXMLNode) -> FeedCategory? {
        guard let term = FeedText.collapsed(node.attribute("term") ?? node.text) else { return nil }
        return FeedCategory(term: term, scheme: FeedText.trimmed(node.attribute("scheme")), label: FeedText.trimmed(node.attribute("label")))
    }

    /// Reads an Atom text construct (`type` = text | html | xhtml or a MIME type; Atom 0.3 `mode`).
    func atomText(_ node: FeedXMLNode) -> (value: String, type: FeedContentType) {
        let type = (FeedText.trimmed(node.attribute("type")) ?? "text").lowercased()
        let mode = FeedText.trimmed(node.attribute("mode"))?.lowercased()
        if mode == "base64" {
            let compact = node.text.filter { !$0.isWhitespace }
            if let data = Data(base64Encoded: compact) {
                let decoded = String(decoding: data, as: UTF8.self)
                return FeedText.contains(type, "html") ? (FeedText.html(decoded, node), .html) : (decoded, .text)
            }
        }
        switch type {
        case "xhtml":
            // Atom 1.0: the wrapping xhtml:div is not part of the content.
            let div = node.elements.first { $0.localName == "div" && $0.ns == .xhtml }
            if let div, node.elementCount == 1 { return (FeedText.innerMarkup(of: div), .xhtml) }
            return (FeedText.innerMarkup(of: node), .xhtml)
        case "application/xhtml+xml":
            return (FeedText.innerMarkup(of: node), .xhtml)
        case "html", "text/html":
            return (FeedText.html(node.text, node), .html)
        case "text", "text/plain":
            return node.hasElementChildren ? (FeedText.innerMarkup(of: node), .html) : (node.text, .text)
        default:
            if mode == "xml" || type.hasSuffix("xml") || node.hasElementChildren {
                return (FeedText.innerMarkup(of: node), .xhtml)
            }
            if !type.hasPrefix("text/"), mode == nil || mode == "base64",
               let data = Data(base64Encoded: node.text.filter { !$0.isWhitespace }) {
                return (String(decoding: data, as: UTF8.self), .text)
            }
            if mode == "escaped" { return (FeedText.html(node.text, node), .html) }
            return (node.text, .text)
        }
    }
}
