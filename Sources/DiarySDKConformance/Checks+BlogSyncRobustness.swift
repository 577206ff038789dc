import DiarySDK
import Foundation

// Blog sync under concurrency, with broken blogs, and with items that carry no identity or date.
extension ConformanceSuite {
    private typealias F = BlogSyncFixtures

    static let blogSyncRobustnessChecks: [ConformanceCheck] = [
        ConformanceCheck("blogSync", "concurrentSyncsOfTheSameBlogCreateNoDuplicates") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            var items = F.threeItems(site: site)
            items.append(F.Item(guid: nil, link: nil, title: "Untitled note", body: "<p>No id, no link</p>", date: "Mon, 09 Mar 2026 10:00:00 GMT"))
            let document = F.rss(title: "B", site: site, items: items)
            server.route("/rss") { _ in
                Thread.sleep(forTimeInterval: 0.05)  // widen the window in which the syncs overlap
                return .text(document, contentType: "application/rss+xml")
            }
            let alice = try await context.user("alice")
            let blog = try await F.registerDirectly(alice, server, "/rss", title: "B")
            // Four devices of the same user, each with its own sync use case: only the storage can prevent duplicates.
            var devices: [DiaryRepositories] = [alice.sdk]
            for _ in 0..<3 {
                let device = try await context.device()
                _ = try await device.accounts.signIn(.password(email: "alice@example.com", password: ConformanceSuite.password))
                devices.append(device)
            }
            let fetcher = URLSessionFeedFetcher()
            let reports = try await withThrowingTaskGroup(of: BlogSyncReport.self) { group in
                for device in devices {
                    group.addTask { try await BlogSync(blogs: device.blogs, fetcher: fetcher, clock: ManualClock(ConformanceSuite.epoch)).sync(blog.id) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try expectEqual(reports.map(\.created).reduce(0, +), 4, "each item is created exactly once across the syncs")
            try expectEqual(try await F.posts(of: alice).count, 4)
            // One use case shared by three callers: a single flight.
            let shared = F.sync(alice, fetcher: fetcher)
            let before = server.hits("/rss")
            async let a = shared.sync(blog.id)
            async let b = shared.sync(blog.id)
            async let c = shared.sync(blog.id)
            let again = try await [a, b, c]
            try expect(again.allSatisfy { $0.created == 0 }, "nothing new on a repeated sync")
            try expect(server.hits("/rss") - before <= 3, "at most one fetch per caller")
            try expectEqual(try await F.posts(of: alice).count, 4)
        },
        ConformanceCheck("blogSync", "syncAllReportsABrokenBlogAndStillImportsTheOthers") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            server.route("/good.rss", .text(F.rss(title: "Good", site: site, items: F.threeItems(site: site)), contentType: "application/rss+xml"))
            server.route("/down.rss", .init(status: 500))
            server.route("/garbage.rss", .text("<html><body>Oops, this is not a feed", contentType: "text/html"))
            let alice = try await context.user("alice")
            let down = try await F.registerDirectly(alice, server, "/down.rss", title: "Down")
            let good = try await F.registerDirectly(alice, server, "/good.rss", title: "Good")
            let garbage = try await F.registerDirectly(alice, server, "/garbage.rss", title: "Garbage")
            var started: Set<Blog.ID> = []
            var finished: [Blog.ID: BlogSyncReport] = [:]
            var failed: [Blog.ID: DiaryError] = [:]
            var summary: BlogSyncSummary?
            var lastCount = 0
            for try await progress in F.sync(alice, fetcher: URLSessionFeedFetcher()).syncAll() {
                try expectEqual(progress.totalCount, 3)
                try expect(progress.finishedCount >= lastCount, "progress never goes back")
                lastCount = progress.finishedCount
                switch progress.event {
                case .started(let blog): started.insert(blog.id)
                case .finished(let blog, let report): finished[blog.id] = report
                case .failed(let blog, let error): failed[blog.id] = error
                case .completed(let total): summary = total
                }
            }
            try expectEqual(started, [down.id, good.id, garbage.id])
            try expectEqual(finished[good.id]?.created, 3)
            try expectEqual(failed[down.id]?.code, .unavailable)
            try expectEqual(failed[down.id]?.httpStatus, 500)
            try expectEqual(failed[garbage.id]?.code, .invalidInput)
            try expectEqual(failed[garbage.id]?.field, "feedURL")
            try expectEqual(summary, BlogSyncSummary(succeeded: 1, failed: 2, created: 3))
            try expectEqual(try await F.posts(of: alice).count, 3)
            try expect(try await alice.sdk.blogs.blog(down.id).sync.lastError != nil, "the failure is recorded on the blog")
            try expectEqual(try await alice.sdk.blogs.blog(good.id).sync.lastError, nil)
        },
        ConformanceCheck("blogSync", "itemsWithoutGuidLinkOrDateAreImportedOnceOnTheFetchDay") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            let site = server.url("/").absoluteString
            let items = [F.Item(guid: nil, link: nil, title: "Undated", body: "<p>When?</p>", date: nil)]
            server.route("/rss", .text(F.rss(title: "B", site: site, items: items), contentType: "application/rss+xml"))
            let alice = try await context.user("alice")
            let blog = try await F.registerDirectly(alice, server, "/rss", title: "B")
            let sync = F.sync(alice, fetcher: URLSessionFeedFetcher())
            try expectEqual(try await sync.sync(blog.id).created, 1)
            try expectEqual(try await sync.sync(blog.id).unchanged, 1)
            let posts = try await F.posts(of: alice)
            try expectEqual(posts.count, 1)
            try expectEqual(posts.first?.createdAt, ConformanceSuite.epoch)
        },
        ConformanceCheck("blogSync", "syncingSomeoneElsesBlogIsRefused") { context in
            let server = try LoopbackHTTPServer()
            defer { server.stop() }
            server.route("/rss", .text(F.rss(title: "B", site: server.url("/").absoluteString, items: []), contentType: "application/rss+xml"))
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let blog = try await F.registerDirectly(alice, server, "/rss", title: "B")
            try await expectError(.forbidden) { try await F.sync(bob, fetcher: URLSessionFeedFetcher()).sync(blog.id) }
            try expectEqual(try await F.posts(of: alice).count, 0)
        },
    ]
}
