import Foundation
@testable import DiarySDK

/// Presents a ``FeedParseResult`` with feedparser's key names, so manifest.json assertions can be evaluated.
/// Dates are kept as `Date` and compared as instants; lengths are strings, as feedparser reports them.
enum ManifestAdapter {
    static func person(_ p: FeedPerson) -> [String: Any] {
        var d: [String: Any] = [:]
        if let name = p.name { d["name"] = name }
        if let email = p.email { d["email"] = email }
        if let url = p.url { d["href"] = url.absoluteString; d["url"] = url.absoluteString }
        return d
    }

    static func authorString(_ p: FeedPerson) -> String? {
        switch (p.name, p.email) {
        case let (name?, email?): return "\(name) (\(email))"
        case let (name?, nil): return name
        case let (nil, email?): return email
        default: return p.url?.absoluteString
        }
    }

    static func link(_ l: FeedLink) -> [String: Any] {
        var d: [String: Any] = ["href": l.href.absoluteString, "rel": l.rel]
        if let type = l.type { d["type"] = type }
        if let title = l.title { d["title"] = title }
        if let length = l.length { d["length"] = String(length) }
        return d
    }

    static func tag(_ c: FeedCategory) -> [String: Any] {
        var d: [String: Any] = ["term": c.term]
        if let scheme = c.scheme { d["scheme"] = scheme }
        if let label = c.label { d["label"] = label }
        return d
    }

    static func addPeople(_ people: [FeedPerson], to d: inout [String: Any]) {
        guard let first = people.first else { return }
        d["author"] = authorString(first)
        d["author_detail"] = person(first)
        d["authors"] = people.map(person)
    }

    static func addDate(_ date: Date?, _ keys: [String], to d: inout [String: Any]) {
        guard let date else { return }
        for key in keys { d[key] = date; d[key + "_parsed"] = date }
    }

    static func feedDict(_ feed: Feed) -> [String: Any] {
        var d: [String: Any] = [:]
        if let title = feed.title { d["title"] = title; d["title_detail"] = ["value": title] }
        if let link = feed.link { d["link"] = link.absoluteString }
        d["links"] = feed.links.map(link)
        if let summary = feed.summary {
            for key in ["subtitle", "description", "tagline", "summary"] { d[key] = summary }
            for key in ["subtitle_detail", "tagline_detail", "description_detail"] { d[key] = ["value": summary] }
        }
        if let id = feed.id { d["id"] = id; d["guid"] = id }
        if let language = feed.language { d["language"] = language }
        addDate(feed.updated, ["updated", "modified", "date"], to: &d)
        addDate(feed.published, ["published", "issued"], to: &d)
        addPeople(feed.authors, to: &d)
        if !feed.categories.isEmpty {
            d["tags"] = feed.categories.map(tag)
            d["category"] = feed.categories[0].term
        }
        if let image = feed.imageURL { d["image"] = ["href": image.absoluteString] }
        return d
    }

    static func entryDict(_ item: FeedItem) -> [String: Any] {
        var d: [String: Any] = [:]
        if let title = item.title { d["title"] = title; d["title_detail"] = ["value": title] }
        if let link = item.link { d["link"] = link.absoluteString }
        var links = item.links.map(link)
        for enclosure in item.enclosures where !item.links.contains(where: { $0.rel == "enclosure" && $0.href == enclosure.url }) {
            links.append(self.link(FeedLink(href: enclosure.url, rel: "enclosure", type: enclosure.type, length: enclosure.length)))
        }
        d["links"] = links
        if let id = item.id { d["id"] = id; d["guid"] = id }
        d["guidislink"] = item.guidIsPermaLink == true && item.link != nil && item.links.allSatisfy { $0.rel != "alternate" || $0.href != item.link }
        if let summary = item.summary ?? (item.content) {
            d["summary"] = summary; d["description"] = summary
            d["summary_detail"] = ["value": summary]
        }
        if let content = item.content {
            d["content"] = [["value": content, "type": item.contentType.map { $0 == .text ? "text/plain" : ($0 == .html ? "text/html" : "application/xhtml+xml") } ?? "text/html"]]
        }
        addDate(item.updated, ["updated", "modified", "date"], to: &d)
        addDate(item.published, ["published", "issued", "created"], to: &d)
        addPeople(item.authors, to: &d)
        if !item.categoryDetails.isEmpty {
            d["tags"] = item.categoryDetails.map(tag)
            d["category"] = item.categoryDetails[0].term
        }
        d["enclosures"] = item.enclosures.map { e -> [String: Any] in
            var x: [String: Any] = ["href": e.url.absoluteString, "url": e.url.absoluteString]
            if let type = e.type { x["type"] = type }
            if let length = e.length { x["length"] = String(length) }
            return x
        }
        if let comments = item.commentsURL { d["comments"] = comments.absoluteString }
        return d
    }

    static func root(_ result: FeedParseResult) -> [String: Any] {
        ["feed": feedDict(result.feed), "entries": result.feed.items.map(entryDict),
         "bozo": result.wasRepaired, "encoding": result.encoding]
    }

    /// Follows `path`; `nil` when a key or index is missing.
    static func resolve(_ path: [Any], in root: Any) -> Any? {
        var current: Any? = root
        for key in path {
            if let name = key as? String, let dict = current as? [String: Any] {
                current = dict[name]
            } else if let index = key as? Int, let list = current as? [Any], list.indices.contains(index) {
                current = list[index]
            } else {
                return nil
            }
        }
        return current
    }

    static func equal(_ actual: Any?, _ expected: Any?, utcISO: String?) -> Bool {
        switch (actual, expected) {
        case (nil, nil), (nil, is NSNull): return true
        case (nil, _): return false
        case let (date as Date, list as [Int]) where list.count >= 6:
            return date.timeIntervalSince1970 == FeedFixtures.epochSeconds(list[0], list[1], list[2], list[3], list[4], list[5])
        case let (date as Date, string as String):
            if let iso = utcISO, let d = FeedDateParser.date(from: iso) { return d == date }
            return FeedDateParser.date(from: string) == date
        case let (a as String, e as String): return a == e
        case let (a as Bool, e as Bool): return a == e
        case let (a as Int, e as Int): return a == e
        case let (a as String, e as Int): return a == String(e)
        case let (a as [String: Any], e as [String: Any]):
            return e.allSatisfy { key, value in equal(a[key], value, utcISO: nil) }
        case let (a as [Any], e as [Any]):
            return a.count == e.count && zip(a, e).allSatisfy { equal($0, $1, utcISO: nil) }
        default:
            return false
        }
    }

    static func truthy(_ value: Any?) -> Bool {
        switch value {
        case nil: return false
        case let b as Bool: return b
        case let s as String: return !s.isEmpty
        case let l as [Any]: return !l.isEmpty
        case let d as [String: Any]: return !d.isEmpty
        default: return true
        }
    }

    /// Evaluates one assertion; `parsed` is nil when the parser threw.
    static func evaluate(_ assertion: [String: Any], parsed: FeedParseResult?) -> Bool {
        let op = assertion["op"] as? String ?? ""
        let expected = assertion["expected"]
        if op == "parses" { return true }
        if op == "bozo" { return (parsed?.wasRepaired ?? true) == (expected as? Bool ?? false) }
        guard let parsed else { return false }
        let value = resolve(assertion["path"] as? [Any] ?? [], in: root(parsed))
        switch op {
        case "eq": return equal(value, expected, utcISO: assertion["expected_utc_iso"] as? String)
        case "ne": return !equal(value, expected, utcISO: nil)
        case "len": return (value as? [Any])?.count == expected as? Int
        case "truthy": return truthy(value)
        case "falsy": return !truthy(value)
        case "absent": return value == nil
        case "in", "not_in":
            let contains: Bool
            if let dict = value as? [String: Any], let key = expected as? String { contains = dict[key] != nil } else if let s = value as? String, let e = expected as? String { contains = s.contains(e) } else { contains = false }
            return op == "in" ? contains : !contains
        default: return false
        }
    }
}
