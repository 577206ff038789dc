@_spi(Engine) import DiarySDK
import Foundation

extension ConformanceSuite {
    static let socialChecks: [ConformanceCheck] = [
        ConformanceCheck("social", "followingShowsInBothListsAndTheRelationship") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            try await alice.sdk.social.follow(bob.id)
            try await alice.sdk.social.follow(bob.id)
            try expectEqual(try await bob.sdk.social.followers(of: bob.id, page: .first()).items.map(\.id), [alice.id])
            try expectEqual(try await bob.sdk.social.following(of: alice.id, page: .first()).items.map(\.id), [bob.id])
            let followers = try await bob.sdk.social.followers(of: bob.id, page: .first()).items
            try expectEqual(followers.first?.email, nil, "lists show public profiles")
            try expect(try await alice.sdk.social.relationship(with: bob.id).isFollowing, "alice follows bob")
            try expect(try await bob.sdk.social.relationship(with: alice.id).isFollowedBy, "bob is followed by alice")
            try await alice.sdk.social.unfollow(bob.id)
            try expectEqual(try await bob.sdk.social.followers(of: bob.id, page: .first()).items.count, 0)
        },
        ConformanceCheck("social", "youCannotFollowYourselfOrSomeoneWhoDoesNotExist") { context in
            let alice = try await context.user("alice")
            try await expectError(.invalidInput, field: "userID") { try await alice.sdk.social.follow(alice.id) }
            try await expectError(.notFound) { try await alice.sdk.social.follow(User.ID(UUID())) }
        },
        ConformanceCheck("social", "reportsAreKeptWithTheirReason") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await bob.sdk.posts.publish(.init(title: "Spam", body: "Buy now"))
            let report = try await alice.sdk.social.report(.post(post.id), reason: .spam, detail: "")
            try expectEqual(report.reason, .spam)
            try expectEqual(report.reporterID, alice.id)
            try await expectError(.invalidInput, field: "detail") { try await alice.sdk.social.report(.user(bob.id), reason: .other, detail: " ") }
            _ = try await alice.sdk.social.report(.user(bob.id), reason: .other, detail: "Impersonates a friend")
            try await expectError(.notFound) { try await alice.sdk.social.report(.post(Post.ID(UUID())), reason: .spam, detail: "") }
            let secret = try await bob.sdk.diaries.write(.init(body: "Private"))
            try await expectError(.notFound) { try await alice.sdk.social.report(.diary(secret.id), reason: .abuse, detail: "") }
        },
        ConformanceCheck("social", "reportingAnythingTheReporterCannotSeeIsNotFound") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let shared = try await bob.sdk.diaries.write(.init(body: "Shared", visibility: .shared))
            _ = try await alice.sdk.social.report(.diary(shared.id), reason: .abuse, detail: "")
            let hidden = try await bob.sdk.diaries.write(.init(body: "Hidden", visibility: .shared))
            _ = try await bob.sdk.diaries.setHidden(hidden.id, true)
            try await expectError(.notFound) { try await alice.sdk.diaries.entry(hidden.id) }
            try await expectError(.notFound) { try await alice.sdk.social.report(.diary(hidden.id), reason: .abuse, detail: "") }
            let carolsPost = try await carol.sdk.posts.publish(.init(title: "Carol", body: "B"))
            let carolsEntry = try await carol.sdk.diaries.write(.init(body: "Shared", visibility: .shared))
            try await alice.sdk.social.block(carol.id)
            try await expectError(.notFound) { try await alice.sdk.social.report(.post(carolsPost.id), reason: .spam, detail: "") }
            try await expectError(.notFound) {
                try await alice.sdk.social.report(.diary(carolsEntry.id), reason: .spam, detail: "")
            }
        },
    ]

    static let notificationChecks: [ConformanceCheck] = [
        ConformanceCheck("notifications", "turnedOffKindsAreNotDelivered") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            var settings = alice.user.settings!
            settings.notifications.remove(.commentOnPost)
            _ = try await alice.sdk.users.updateSettings(settings)
            let post = try await alice.sdk.posts.publish(.init(title: "Quiet", body: "Please"))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "Noise"))
            try expectEqual(try await alice.sdk.notifications.notifications(page: .first()).items.count, 0)
        },
        ConformanceCheck("notifications", "readStateAndUnreadCountArePerRecipient") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "T", body: "B"))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "1"))
            try await context.setNow(epoch.addingTimeInterval(1))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "2"))
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 2)
            let notes = try await alice.sdk.notifications.notifications(page: .first()).items
            try expect(notes[0].createdAt > notes[1].createdAt, "newest first")
            try await expectError(.notFound) { try await bob.sdk.notifications.markRead(notes[0].id) }
            try await alice.sdk.notifications.markRead(notes[0].id)
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 1)
            try await alice.sdk.notifications.markAllRead()
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 0)
        },
    ]

    static let blogChecks: [ConformanceCheck] = [
        ConformanceCheck("blogs", "theFirstBlogIsPrimaryAndOnlyOneBlogIsPrimary") { context in
            let alice = try await context.user("alice")
            let first = try await alice.sdk.blogs.register(
                .init(title: "Tistory", siteURL: URL(string: "https://alice.tistory.com")!, feedURL: URL(string: "https://alice.tistory.com/rss")!))
            try expect(first.isPrimary, "the first blog is primary")
            let second = try await alice.sdk.blogs.register(
                .init(title: "velog", siteURL: URL(string: "https://velog.io/@alice")!, feedURL: URL(string: "https://v2.velog.io/rss/alice")!))
            try expect(!second.isPrimary, "later blogs are not")
            _ = try await alice.sdk.blogs.setPrimary(second.id)
            let blogs = try await alice.sdk.blogs.blogs(of: nil)
            try expectEqual(blogs.map(\.id), [second.id, first.id])
            try expectEqual(blogs.map(\.isPrimary), [true, false])
        },
        ConformanceCheck("blogs", "duplicateFeedsAndNonWebAddressesAreRejected") { context in
            let alice = try await context.user("alice")
            let draft = BlogDraft(title: "Blog", siteURL: URL(string: "https://a.example")!, feedURL: URL(string: "https://a.example/feed")!)
            _ = try await alice.sdk.blogs.register(draft)
            try await expectError(.conflict, field: "feedURL") { try await alice.sdk.blogs.register(draft) }
            try await expectError(.invalidInput, field: "feedURL") {
                try await alice.sdk.blogs.register(.init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "ftp://b.example/feed")!))
            }
        },
        ConformanceCheck("blogs", "importingDeduplicatesByGuidThenByLink") { context in
            let alice = try await context.user("alice")
            let blog = try await alice.sdk.blogs.register(
                .init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "https://b.example/rss")!))
            let link = URL(string: "https://b.example/1")!
            let item = ImportedItem(guid: "guid-1", url: link, title: "First", body: "<p>Hi</p>", tags: ["til"], publishedAt: instant("2026-03-09T10:00:00Z"))
            try expectEqual(try await alice.sdk.blogs.importItem(item, into: blog.id), .created)
            try expectEqual(try await alice.sdk.blogs.importItem(item, into: blog.id), .unchanged)
            var rewritten = item
            rewritten.guid = "new-guid-scheme-1"
            try expectEqual(try await alice.sdk.blogs.importItem(rewritten, into: blog.id), .updated, "same link, new GUID")
            var edited = rewritten
            edited.body = "<p>Hi, edited</p>"
            try expectEqual(try await alice.sdk.blogs.importItem(edited, into: blog.id), .updated)
            let posts = try await alice.sdk.posts.posts(by: nil, page: .first()).items
            try expectEqual(posts.count, 1)
            try expectEqual(posts.first?.body, "<p>Hi, edited</p>")
            try expectEqual(posts.first?.createdAt, instant("2026-03-09T10:00:00Z"))
        },
        ConformanceCheck("blogs", "aBatchImportsEachItemAsImportItemDoesAndReportsEachInOrder") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let blog = try await alice.sdk.blogs.register(
                .init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "https://b.example/rss")!))
            let items = (1...3).map {
                ImportedItem(
                    guid: "batch-\($0)", url: URL(string: "https://b.example/\($0)"), title: "Item \($0)", body: "Body \($0)",
                    tags: [], publishedAt: instant("2026-03-0\($0)T10:00:00Z"))
            }
            _ = try await alice.sdk.blogs.importItem(items[0], into: blog.id)
            var edited = items[1]
            edited.body = "Body 2, edited"
            // Already imported, new, then the same item again later in the batch: one post each.
            let results = try await alice.sdk.blogs.importItems([items[0], items[1], items[2], edited], into: blog.id)
            try expectEqual(results.map(\.outcome), [.unchanged, .created, .created, .updated])
            try expect(results.allSatisfy { $0.failure == nil }, "no item failed")
            let posts = try await alice.sdk.posts.posts(by: nil, page: .first()).items
            try expectEqual(posts.map(\.title).sorted(), ["Item 1", "Item 2", "Item 3"])
            try expectEqual(posts.first { $0.title == "Item 2" }?.body, "Body 2, edited")
            try expectEqual(try await alice.sdk.blogs.importItems([], into: blog.id), [])
            let tooMany = Array(repeating: items[0], count: ImportedItem.maximumBatchSize + 1)
            try await expectError(.invalidInput, field: "items") { try await alice.sdk.blogs.importItems(tooMany, into: blog.id) }
            try await expectError(.forbidden) { try await bob.sdk.blogs.importItems([items[0]], into: blog.id) }
        },
        ConformanceCheck("blogs", "importedPostsCountOnTheirPublicationDayInTheUsersTimeZone") { context in
            let alice = try await context.user("alice", timeZone: "Asia/Seoul")
            let blog = try await alice.sdk.blogs.register(
                .init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "https://b.example/rss")!))
            // 16:00 UTC on the 9th is 01:00 on the 10th in Seoul.
            let item = ImportedItem(guid: "g", url: nil, title: "Late", body: "B", tags: [], publishedAt: instant("2026-03-09T16:00:00Z"))
            _ = try await alice.sdk.blogs.importItem(item, into: blog.id)
            let calendar = try await alice.sdk.diaries.calendar(month("2026-03"), of: nil)
            try expectEqual(calendar.days.map(\.date), [day("2026-03-10")])
            try expectEqual(try await alice.sdk.diaries.streak(of: nil).current, 1)
        },
        ConformanceCheck("blogs", "onlyTheOwnerChangesABlogAndOthersSeeNoSyncValidators") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let blog = try await alice.sdk.blogs.register(
                .init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "https://b.example/rss")!))
            _ = try await alice.sdk.blogs.recordSync(blog.id, .init(lastSyncedAt: epoch, etag: "\"abc\"", lastModified: "Mon"))
            try await expectError(.forbidden) { try await bob.sdk.blogs.updateBlog(blog.id, .init(title: "Mine")) }
            try await expectError(.forbidden) { try await bob.sdk.blogs.deleteBlog(blog.id) }
            try await expectError(.forbidden) {
                try await bob.sdk.blogs.importItem(.init(guid: "x", url: nil, title: "x", body: "x", tags: [], publishedAt: epoch), into: blog.id)
            }
            let seen = try await bob.sdk.blogs.blog(blog.id)
            try expectEqual(seen.sync.etag, nil)
            try expectEqual(try await alice.sdk.blogs.blog(blog.id).sync.etag, "\"abc\"")
            try await alice.sdk.blogs.deleteBlog(blog.id)
            try await expectError(.notFound) { try await alice.sdk.blogs.blog(blog.id) }
        },
    ]
}
