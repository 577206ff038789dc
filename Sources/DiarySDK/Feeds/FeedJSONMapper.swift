import Foundation

/// Maps JSON Feed 1.0 / 1.1 documents (decoded leniently with `JSONDecoder`) onto the ``Feed`` model.
struct FeedJSONMapper {
    let documentURL: URL?
    var diagnostics: [FeedDiagnostic] = []

    init(documentURL: URL?) {
        self.documentURL = documentURL
    }

    /// Any-string coding key, so that the wire format can be read leniently field by field.
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A JSON object read leniently: wrong types read as absent instead of failing the document.
    struct Object: Decodable {
        let container: KeyedDecodingContainer<Key>

        init(from decoder: Decoder) throws {
            container = try decoder.container(keyedBy: Key.self)
        }

        func string(_ key: String) -> String? {
            let k = Key(key)
            if let value = try? container.decodeIfPresent(String.self, forKey: k) { return value }
            if let value = try? container.decodeIfPresent(Int64.self, forKey: k) { return String(value) }
            if let value = try? container.decodeIfPresent(Double.self, forKey: k) { return String(value) }
            return nil
        }

        func number(_ key: String) -> Double? {
            let k = Key(key)
            if let value = try? container.decodeIfPresent(Double.self, forKey: k) { return value }
            if let value = try? container.decodeIfPresent(String.self, forKey: k) { return Double(value) }
            return nil
        }

        func object(_ key: String) -> Object? {
            (try? container.decodeIfPresent(Object.self, forKey: Key(key))) ?? nil
        }

        func objects(_ key: String) -> [Object] {
            guard var list = try? container.nestedUnkeyedContainer(forKey: Key(key)) else { return [] }
            var result: [Object] = []
            while !list.isAtEnd {
                if let object = try? list.decode(Object.self) {
                    result.append(object)
                } else if (try? list.decode(Skip.self)) == nil {
                    break
                }
            }
            return result
        }

        func strings(_ key: String) -> [String] {
            guard var list = try? container.nestedUnkeyedContainer(forKey: Key(key)) else { return [] }
            var result: [String] = []
            while !list.isAtEnd {
                if let value = try? list.decode(String.self) {
                    result.append(value)
                } else if (try? list.decode(Skip.self)) == nil {
                    break
                }
            }
            return result
        }
    }

    /// Consumes any JSON value.
    struct Skip: Decodable {
        init(from decoder: Decoder) throws {}
    }

    mutating func map(_ data: Data) throws -> Feed {
        let root: Object
        do {
            root = try JSONDecoder().decode(Object.self, from: data)
        } catch {
            throw FeedParsingError(.malformedJSON, "The JSON is not well-formed: \(error.localizedDescription)",
                                   underlying: FeedUnderlyingError(error))
        }
        let version = root.string("version") ?? ""
        let format: FeedFormat
        if version.contains("jsonfeed.org/version/1.1") {
            format = .jsonFeed11
        } else if version.contains("jsonfeed.org/version/1") {
            format = .jsonFeed10
        } else if root.container.contains(Key("items")) && root.container.contains(Key("title")) {
            format = .jsonFeed10
            diagnostics.append(FeedDiagnostic(kind: "jsonFeedVersion", severity: .repaired,
                                              message: "The JSON Feed has no recognised version (\"\(version)\"); read as 1.0"))
        } else {
            throw FeedParsingError(.unsupportedFormat, "The JSON document is not a JSON Feed (no jsonfeed.org version)")
        }
        var feed = Feed(format: format, title: FeedText.collapsed(root.string("title")))
        feed.link = resolve(root.string("home_page_url"))
        feed.feedURL = resolve(root.string("feed_url"))
        if let link = feed.link { feed.links.append(FeedLink(href: link)) }
        if let feedURL = feed.feedURL { feed.links.append(FeedLink(href: feedURL, rel: "self")) }
        feed.summary = FeedText.trimmed(root.string("description"))
        feed.language = FeedText.trimmed(root.string("language"))
        feed.imageURL = resolve(root.string("icon")) ?? resolve(root.string("favicon"))
        feed.authors = people(root)
        for item in root.objects("items") {
            feed.items.append(mapItem(item))
        }
        return feed
    }

    func resolve(_ string: String?) -> URL? {
        guard let string else { return nil }
        return FeedURLResolver.resolve(string, against: documentURL)
    }

    /// ``resolve(_:)`` as the URL's absolute string, without a `URL` for a plain absolute http(s) reference.
    func resolveText(_ string: String?) -> String? {
        guard let string else { return nil }
        return FeedURLResolver.resolveText(string, against: documentURL)
    }

    func people(_ object: Object) -> [FeedPerson] {
        var list = object.objects("authors")
        if list.isEmpty, let single = object.object("author") { list = [single] }
        return list.compactMap { author in
            let person = FeedPerson(name: FeedText.collapsed(author.string("name")), email: nil, url: resolve(author.string("url")))
            return person.name == nil && person.url == nil ? nil : person
        }
    }

    mutating func date(_ raw: String?) -> Date? {
        guard let raw = FeedText.trimmed(raw) else { return nil }
        if let date = FeedDateParser.date(from: raw) { return date }
        diagnostics.append(FeedDiagnostic(kind: "invalidDate", severity: .warning, message: "Unparseable date \"\(raw.prefix(80))\""))
        return nil
    }

    mutating func mapItem(_ object: Object) -> FeedItem {
        var item = FeedItem(id: FeedText.trimmed(object.string("id")), title: FeedText.collapsed(object.string("title")))
        item.linkText = resolveText(object.string("url"))
        if let link = item.linkText { item.links.append(FeedLink(hrefText: link)) }
        if let external = resolveText(object.string("external_url")) {
            item.links.append(FeedLink(hrefText: external, rel: "related"))
            if item.linkText == nil { item.linkText = external }
        }
        item.summary = FeedText.trimmed(object.string("summary"))
        if let html = FeedText.trimmed(object.string("content_html")) {
            item.content = html
            item.contentType = .html
        } else if let text = FeedText.trimmed(object.string("content_text")) {
            item.content = text
            item.contentType = .text
        }
        item.published = date(object.string("date_published"))
        item.updated = date(object.string("date_modified"))
        item.authors = people(object)
        item.categoryDetails = object.strings("tags").compactMap { FeedText.collapsed($0).map { FeedCategory(term: $0) } }
        for key in ["image", "banner_image"] {
            if let image = resolve(object.string(key)) { item.thumbnails.append(FeedMedia(url: image, medium: "image")) }
        }
        for attachment in object.objects("attachments") {
            guard let url = resolve(attachment.string("url")) else { continue }
            item.enclosures.append(FeedEnclosure(url: url, type: FeedText.trimmed(attachment.string("mime_type")),
                                                 length: attachment.number("size_in_bytes").flatMap { Int64(exactly: $0.rounded()) }))
            if item.itunesDuration == nil { item.itunesDuration = attachment.number("duration_in_seconds") }
        }
        return item
    }
}
