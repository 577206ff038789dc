import Foundation
import Testing
@testable import DiarySDK

@Suite("Real-world feeds")
struct RealFeedTests {
    static func realFiles() throws -> [URL] {
        let dir = try FeedFixtures.directory().appendingPathComponent("real")
        return try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { !$0.hasDirectoryPath && $0.lastPathComponent != "sources.json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func parse(_ name: String) throws -> FeedParseResult {
        let url = try FeedFixtures.directory().appendingPathComponent("real/\(name)")
        return try FeedParser().parse(contentsOf: url)
    }

    @Test("every real feed parses with titled, linked, dated items")
    func everyRealFeedParses() throws {
        let files = try Self.realFiles()
        #expect(files.count == 20)
        for file in files {
            let result = try FeedParser().parse(contentsOf: file)
            let feed = result.feed
            let items = feed.items
            print("\(file.lastPathComponent): \(feed.format) items=\(items.count) title=\(feed.title ?? "nil") diag=\(result.diagnostics.map(\.kind))")
            #expect(!items.isEmpty, "\(file.lastPathComponent) has no items")
            #expect(feed.title != nil, "\(file.lastPathComponent) has no title")
            let titled = items.filter { $0.title != nil || $0.content != nil || $0.summary != nil }.count
            let linked = items.filter { $0.link != nil }.count
            let dated = items.filter { $0.published != nil || $0.updated != nil }.count
            #expect(titled * 10 >= items.count * 9, "\(file.lastPathComponent): only \(titled)/\(items.count) items have text")
            #expect(linked * 100 >= items.count * 85, "\(file.lastPathComponent): only \(linked)/\(items.count) items have links")
            #expect(dated * 10 >= items.count * 9, "\(file.lastPathComponent): only \(dated)/\(items.count) items have dates")
            #expect(!result.diagnostics.contains { $0.kind == "invalidDate" } || file.lastPathComponent.contains("kc0011"),
                    "\(file.lastPathComponent): \(result.diagnostics)")
        }
    }

    static func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> Date {
        Date(timeIntervalSince1970: FeedFixtures.epochSeconds(y, mo, d, h, mi, s))
    }

    @Test("ATP podcast: RSS 2.0 with iTunes, dc:creator, non-permalink guid and enclosure")
    func atpPodcastValues() throws {
        let feed = try Self.parse("rsparser__atp.rss").feed
        #expect(feed.format == .rss20)
        #expect(feed.title == "Accidental Tech Podcast")
        #expect(feed.items.count == 100)
        let item = try #require(feed.items.first)
        #expect(item.title == "311: Mutually Assured Destruction")
        #expect(item.link?.absoluteString == "http://atp.fm/episodes/311")
        #expect(item.id == "513abd71e4b0fe58c655c105:513abd71e4b0fe58c655c111:5c5273baf950b7d24bfdcb28")
        #expect(item.guidIsPermaLink == false)
        #expect(item.authors.first?.name == "Marco Arment")
        #expect(item.published == Self.utc(2019, 1, 31, 16, 58, 12))
        #expect(item.itunesDuration == 6_849)
        #expect(item.itunesExplicit == false)
        #expect(item.itunesImageURL?.absoluteString.hasSuffix("/1500w/Artwork.jpg") == true)
        #expect(item.enclosures == [FeedEnclosure(url: URL(string: "http://traffic.libsyn.com/atpfm/atp311.mp3")!, type: "audio/mpeg", length: 54_919_661)])
        #expect(item.summary?.hasPrefix("<ul>") == true)
        #expect(item.stableKey == "id:513abd71e4b0fe58c655c105:513abd71e4b0fe58c655c111:5c5273baf950b7d24bfdcb28")
    }

    @Test("bioRxiv RDF: RSS 1.0 items outside the channel, CDATA titles whitespace-collapsed, links trimmed")
    func bioRxivRDFValues() throws {
        let feed = try Self.parse("rsparser__bio.rdf").feed
        #expect(feed.format == .rss10)
        #expect(feed.items.count == 30)
        let item = try #require(feed.items.first)
        #expect(item.title == "Wheat inositol pyrophosphate kinase (TaVIH2-3B) interacts with Fasciclin-like arabinogalactan (FLA6) protein and alters the plant cell-wall composition")
        #expect(item.link?.absoluteString == "http://biorxiv.org/cgi/content/short/743294v1?rss=1")
        #expect(item.id == "http://biorxiv.org/cgi/content/short/743294v1?rss=1")
        #expect(item.summary?.hasPrefix("Inositol pyrophosphates (PPx-InsPs)") == true)
    }

    @Test("Daring Fireball Atom: alternate link, dates, author, html content with xml:base")
    func daringFireballAtomValues() throws {
        let feed = try Self.parse("rsparser__DaringFireball.atom").feed
        #expect(feed.format == .atom10)
        #expect(feed.summary == "By John Gruber")
        let item = try #require(feed.items.first)
        #expect(item.title == "The Talk Show: ‘I Do Like Throwing a Baby’")
        #expect(item.link?.absoluteString == "https://daringfireball.net/thetalkshow/2017/06/26/ep-195")
        #expect(item.id == "tag:daringfireball.net,2017:/linked//6.33853")
        #expect(item.published == Self.utc(2017, 6, 27, 0, 54, 17))
        #expect(item.updated == Self.utc(2017, 6, 27, 0, 54, 20))
        #expect(item.authors == [FeedPerson(name: "John Gruber", url: URL(string: "http://daringfireball.net/"))])
        #expect(item.contentType == .html)
        #expect(item.content?.hasPrefix("<p>New episode of America&#8217;s favorite 3-star podcast") == true)
    }

    @Test("kc0011: GB2312 bytes decode to Chinese text and slash dates parse")
    func gb2312FeedValues() throws {
        let result = try Self.parse("rsparser__kc0011.rss")
        #expect(result.encoding == "gb18030")
        let item = try #require(result.feed.items.first)
        #expect(item.title == "建国35周年纪念，华表，和平鸽")
        #expect(item.link?.absoluteString == "http://www.kc0011.net/dispbbs.asp?BoardID=10&ID=25164257&Page=1")
        #expect(item.authors.first?.name == "大鱼儿")
        #expect(item.published == Self.utc(2020, 1, 10, 14, 33, 0))
    }

    @Test("inessential JSON Feed 1.0: items, author, dates")
    func inessentialJSONValues() throws {
        let feed = try Self.parse("rsparser__inessential.json").feed
        #expect(feed.format == .jsonFeed10)
        #expect(feed.summary == "Brent Simmons’s weblog.")
        #expect(feed.feedURL?.absoluteString == "http://inessential.com/feed.json")
        #expect(feed.authors.first?.name == "Brent Simmons")
        let item = try #require(feed.items.first)
        #expect(item.title == "James Dempsey and the Breakpoints Benefit App Camp for Girls")
        #expect(item.link?.absoluteString == "http://inessential.com/2017/06/02/james_dempsey_and_the_breakpoints_benefi")
        #expect(item.contentType == .html)
        #expect(item.published != nil)
    }

    @Test("Reddit Atom with Media RSS: link without rel is alternate, escaped html content")
    func redditAtomValues() throws {
        let feed = try Self.parse("feed-rs__atom_mediarss_reddit_1.xml").feed
        let item = try #require(feed.items.first)
        #expect(item.id == "t3_157kyrd")
        #expect(item.title == "Any reason to keep 1G connections to my servers?")
        #expect(item.link?.absoluteString == "https://ud.reddit.com/r/homelab/comments/157kyrd/any_reason_to_keep_1g_connections_to_my_servers/")
        #expect(item.published == Self.utc(2023, 7, 23, 17, 38, 30))
        #expect(item.authors.first?.name == "/u/Remarkable_Housing61")
        #expect(item.categories == ["homelab"])
        #expect(item.content?.hasPrefix("<!-- SC_OFF --><div class=\"md\">") == true)
    }

    @Test("Scripting News: a source: prefix bound to another namespace is not RSS's source element; items without titles keep descriptions")
    func scriptingNewsValues() throws {
        let feed = try Self.parse("rsparser__scriptingNews.rss").feed
        #expect(feed.updated == Self.utc(2017, 6, 26, 19, 41, 48))
        #expect(feed.language == "en-us")
        let item = try #require(feed.items.first)
        #expect(item.title == nil)
        #expect(item.summary == "Good morning students and teachers! 🍏")
        #expect(item.link?.absoluteString == "http://scripting.com/2017/06/26.html#a080605")
        #expect(item.guidIsPermaLink == true)
    }
}
