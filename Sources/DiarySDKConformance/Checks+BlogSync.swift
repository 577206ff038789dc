import DiarySDK
import Foundation

// Blog registration with autodiscovery and feed import, over a real HTTP server on loopback and the real
// `URLSessionFeedFetcher`: every backend runs the same pipeline.
extension ConformanceSuite {
    static let blogSyncChecks: [ConformanceCheck] = registrationChecks + importChecks + blogSyncRobustnessChecks

    private typealias F = BlogSyncFixtures

    private static let registrationChecks: [ConformanceCheck] = [
        ConformanceCheck("blogSync", "registersABlogFromItsPageThroughLinkAlternateDiscovery") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            server.route("/", .text(F.page(title: "Alice writes", feedPath: "/blog/feed.rss"), contentType: "text/html; charset=utf-8"))
            server.route("/blog/feed.rss", .text(F.rss(title: "Alice's TIL", site: site, items: F.threeItems(site: site)), contentType: "application/rss+xml"))
            let alice = try await context.user("alice")
            let registration = BlogRegistration(blogs: alice.sdk.blogs, fetcher: URLSessionFeedFetcher())
            let blog = try await registration.register(site)
            try expectEqual(blog.feedURL, server.url("/blog/feed.rss"))
            try expectEqual(blog.siteURL, server.url("/"))
            try expectEqual(blog.title, "Alice's TIL")
            try expect(blog.isPrimary, "the first blog is primary")
            try expectEqual(try await alice.sdk.blogs.blogs(of: nil).map(\.id), [blog.id])
            try await expectError(.conflict, field: "feedURL") { try await registration.register(site) }
        },
        ConformanceCheck("blogSync", "registersABlogFromItsFeedAddress") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/home/").absoluteString
            server.route("/atom.xml", .text(F.atom(title: "Atom blog", site: site, items: F.threeItems(site: site)), contentType: "application/atom+xml"))
            let alice = try await context.user("alice")
            let registration = BlogRegistration(blogs: alice.sdk.blogs, fetcher: URLSessionFeedFetcher())
            let blog = try await registration.register(server.url("/atom.xml").absoluteString, title: "  My Atom  ")
            try expectEqual(blog.feedURL, server.url("/atom.xml"))
            try expectEqual(blog.siteURL, server.url("/home/"))
            try expectEqual(blog.title, "My Atom")
            let renamed = try await registration.rename(blog.id, to: "Renamed")
            try expectEqual(renamed.title, "Renamed")
        },
        ConformanceCheck("blogSync", "anAddressWithoutAFeedIsATypedError") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            server.route("/", .text(F.page(title: "No feed here", feedPath: nil), contentType: "text/html"))
            server.route("/feed", .text(F.page(title: "Still a page", feedPath: nil), contentType: "text/html"))
            let alice = try await context.user("alice")
            let registration = BlogRegistration(blogs: alice.sdk.blogs, fetcher: URLSessionFeedFetcher())
            let error = try await expectError(.invalidInput, field: "url") { try await registration.register(server.url("/").absoluteString) }
            try expect(error.message.contains("no RSS, Atom or JSON feed found"), "the message says what is missing: \(error.message)")
            try await expectError(.invalidInput, field: "url") { try await registration.register("not an address") }
            try expectEqual(try await alice.sdk.blogs.blogs(of: nil).count, 0)
        },
    ]

    private static let importChecks: [ConformanceCheck] = [
        ConformanceCheck("blogSync", "theFirstSyncImportsItemsAsPostsOnTheirPublicationDay") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            server.route("/rss", .text(F.rss(title: "B", site: site, items: F.threeItems(site: site)), contentType: "application/rss+xml"))
            let alice = try await context.user("alice", timeZone: "Asia/Seoul")
            let blog = try await F.registerDirectly(alice, server, "/rss", title: "B")
            let report = try await F.sync(alice, fetcher: URLSessionFeedFetcher()).sync(blog.id)
            try expectEqual([report.created, report.updated, report.unchanged], [3, 0, 0])
            let posts = try await F.posts(of: alice)
            try expectEqual(posts.map(\.title).sorted(), ["First", "Second", "Third"])
            try expect(posts.allSatisfy { $0.isMine && !$0.isAnonymous }, "imported posts are the owner's")
            let second = try requireValue(posts.first { $0.title == "Second" })
            try expectEqual(second.source, .blog(BlogImport(blogID: blog.id, guid: "p-2", url: server.url("/posts/2"))))
            try expectEqual(posts.first { $0.title == "First" }?.tags, ["swift"])
            // 03:00Z on the 8th, 16:00Z on the 9th and 01:00Z on the 10th are the 8th, 10th and 10th in Seoul.
            let calendar = try await alice.sdk.diaries.calendar(month("2026-03"), of: nil)
            try expectEqual(calendar.days.map(\.date), [day("2026-03-08"), day("2026-03-10")])
            try expectEqual(calendar.days.map(\.postCount), [1, 2])
            try expectEqual(try await alice.sdk.diaries.streak(of: nil).current, 1)
            let synced = try await alice.sdk.blogs.blog(blog.id)
            try expectEqual(synced.sync.lastSyncedAt, ConformanceSuite.epoch)
            try expectEqual(synced.sync.lastError, nil)
        },
        ConformanceCheck("blogSync", "theSecondSyncSendsTheValidatorsAndA304ImportsNothing") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            let document = F.rss(title: "B", site: site, items: F.threeItems(site: site))
            F.serveConditionally(server, "/rss") { document }
            let alice = try await context.user("alice")
            let blog = try await F.registerDirectly(alice, server, "/rss", title: "B")
            let sync = F.sync(alice, fetcher: URLSessionFeedFetcher())
            _ = try await sync.sync(blog.id)
            let etag = try await alice.sdk.blogs.blog(blog.id).sync.etag
            try expect(etag != nil, "the ETag is stored")
            let second = try await sync.sync(blog.id)
            try expect(second.notModified, "the server answered 304")
            try expectEqual([second.created, second.updated, second.unchanged], [0, 0, 0])
            try expectEqual(server.requests.last?.header("If-None-Match"), etag)
            try expectEqual(try await F.posts(of: alice).count, 3)
            try expectEqual(try await alice.sdk.blogs.blog(blog.id).sync.etag, etag)
        },
        ConformanceCheck("blogSync", "aChangedItemIsUpdatedNotDuplicated") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            let version = Locked(1)
            F.serveConditionally(server, "/rss") {
                var items = F.threeItems(site: site)
                if version.current == 2 { items[1].body = "<p>Two, edited</p>" }
                return F.rss(title: "B", site: site, items: items)
            }
            let alice = try await context.user("alice")
            let blog = try await F.registerDirectly(alice, server, "/rss", title: "B")
            let sync = F.sync(alice, fetcher: URLSessionFeedFetcher())
            _ = try await sync.sync(blog.id)
            version.withLock { $0 = 2 }
            let report = try await sync.sync(blog.id)
            try expectEqual([report.created, report.updated, report.unchanged], [0, 1, 2])
            let posts = try await F.posts(of: alice)
            try expectEqual(posts.count, 3)
            try expectEqual(posts.first { $0.title == "Second" }?.body, "<p>Two, edited</p>")
        },
        ConformanceCheck("blogSync", "guidsRewrittenToTheSameLinksDoNotDuplicatePosts") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            let rewritten = Locked(false)
            F.serveConditionally(server, "/rss") {
                var items = F.threeItems(site: site)
                if rewritten.current { for index in items.indices { items[index].guid = "tag:blog,2026:\(index)" } }
                return F.rss(title: "B", site: site, items: items)
            }
            let alice = try await context.user("alice")
            let blog = try await F.registerDirectly(alice, server, "/rss", title: "B")
            let sync = F.sync(alice, fetcher: URLSessionFeedFetcher())
            _ = try await sync.sync(blog.id)
            rewritten.withLock { $0 = true }
            let report = try await sync.sync(blog.id)
            try expectEqual(report.created, 0, "no item is new")
            try expectEqual(try await F.posts(of: alice).count, 3)
            try expectEqual(try await sync.sync(blog.id).notModified, true)
        },
    ]
}

/// Unwraps an optional or fails the check.
func requireValue<T>(_ value: T?, file: StaticString = #fileID, line: UInt = #line) throws -> T {
    guard let value else { throw ConformanceFailure(message: "expected a value, got nil", file: "\(file)", line: line) }
    return value
}
