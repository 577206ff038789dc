import DiarySDK
import Foundation

extension ConformanceSuite {
    /// What `viewer` can see of anonymous content: the feed, a post's comment count and comments, notifications.
    private struct AnonymousView: Equatable {
        var feed: [Post.ID]
        var commentCount: Int
        var comments: [Comment.ID]
        var notifications: [DiaryNotification.ID]
        var unread: Int

        init(of viewer: ConformanceUser, post: Post.ID) async throws {
            feed = try await viewer.sdk.posts.feed(page: .first()).items.map(\.id)
            commentCount = try await viewer.sdk.posts.post(post).commentCount
            comments = try await viewer.sdk.comments.comments(on: .post(post), page: .first()).items.map(\.comment.id)
            notifications = try await viewer.sdk.notifications.notifications(page: .first()).items.map(\.id)
            unread = try await viewer.sdk.notifications.unreadCount()
        }
    }

    static let anonymousAuthorChecks: [ConformanceCheck] = [
        ConformanceCheck("anonymity", "blockingAUserNeverRevealsWhichAnonymousContentIsTheirs") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let alicesPost = try await alice.sdk.posts.publish(.init(title: "Alice asks", body: "?"))
            let named = try await bob.sdk.posts.publish(.init(title: "Bob", body: "named"))
            let anonymous = try await bob.sdk.posts.publish(.init(title: "Someone", body: "anonymous", isAnonymous: true))
            let comment = try await bob.sdk.comments.addComment(.init(target: .post(alicesPost.id), body: "psst", isAnonymous: true))
            let before = try await AnonymousView(of: alice, post: alicesPost.id)
            try expectEqual(before.comments, [comment.id])
            try expectEqual(before.notifications.count, 1, "alice was told about the anonymous comment")
            // Blocking the anonymous author looks exactly like blocking anyone else: only named content goes.
            try await alice.sdk.social.block(carol.id)
            try expectEqual(try await AnonymousView(of: alice, post: alicesPost.id), before, "blocking carol")
            try await alice.sdk.social.block(bob.id)
            var after = try await AnonymousView(of: alice, post: alicesPost.id)
            try expectEqual(after.feed, before.feed.filter { $0 != named.id }, "only bob's named post leaves the feed")
            after.feed = before.feed
            try expectEqual(after, before, "anonymous posts, comments, counts and notifications stay")
            try expectEqual(try await alice.sdk.posts.post(anonymous.id).id, anonymous.id)
            try expectEqual(
                try await alice.sdk.posts.search(.init(text: "anonymous"), page: .first()).items.map(\.id), [anonymous.id])
            try await expectError(.notFound) { try await alice.sdk.posts.post(named.id) }
            // New anonymous comments show alike (bob can no longer see alice's post, but dave's), and the block works
            // the other way round too.
            let dave = try await context.user("dave")
            let davesPost = try await dave.sdk.posts.publish(.init(title: "Dave asks", body: "?"))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(davesPost.id), body: "again", isAnonymous: true))
            try expectEqual(try await alice.sdk.posts.post(davesPost.id).commentCount, 1)
            let alicesSecret = try await alice.sdk.posts.publish(.init(title: "A secret", body: "s", isAnonymous: true))
            try expectEqual(try await bob.sdk.posts.post(alicesSecret.id).author, nil)
            let unread = try await alice.sdk.notifications.unreadCount()
            _ = try await bob.sdk.comments.addComment(.init(target: .post(alicesSecret.id), body: "hm", isAnonymous: true))
            try expectEqual(try await alice.sdk.notifications.unreadCount(), unread + 1, "anonymous comments notify alike")
            _ = try await alice.sdk.social.report(.post(anonymous.id), reason: .abuse, detail: "")
        },
        ConformanceCheck("anonymity", "blockingTheAuthorOfAnAnonymousPostHidesTheirAnonymousContentWithoutNamingThem") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let alicesPost = try await alice.sdk.posts.publish(.init(title: "Alice asks", body: "?"))
            let carolsPost = try await carol.sdk.posts.publish(.init(title: "Carol asks", body: "?"))
            let named = try await bob.sdk.posts.publish(.init(title: "Bob", body: "named"))
            let first = try await bob.sdk.posts.publish(.init(title: "Troll 1", body: "x", isAnonymous: true))
            let second = try await bob.sdk.posts.publish(.init(title: "Troll 2", body: "x", isAnonymous: true))
            let onCarols = try await bob.sdk.comments.addComment(.init(target: .post(carolsPost.id), body: "x", isAnonymous: true))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(alicesPost.id), body: "x", isAnonymous: true))
            let namedComment = try await bob.sdk.comments.addComment(.init(target: .post(carolsPost.id), body: "hi"))
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 1)

            try await alice.sdk.social.blockAuthor(of: .post(first.id))
            let feed = try await alice.sdk.posts.feed(page: .first()).items.map(\.id)
            try expectEqual(Set(feed), [alicesPost.id, carolsPost.id, named.id], "both anonymous posts go, the named one stays")
            try await expectError(.notFound) { try await alice.sdk.posts.post(second.id) }
            let carols = try await alice.sdk.posts.post(carolsPost.id)
            try expectEqual(carols.commentCount, 1, "the count leaves out the hidden author's anonymous comment")
            try expectEqual(
                try await alice.sdk.comments.comments(on: .post(carolsPost.id), page: .first()).items.map(\.comment.id),
                [namedComment.id])
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 0, "the earlier notification goes")
            try expectEqual(try await alice.sdk.notifications.notifications(page: .first()).items.count, 0)
            // Nothing names bob: no listed block, no relationship, his named content and profile unchanged.
            try expectEqual(try await alice.sdk.social.blockedUsers(page: .first()).items.count, 0)
            try expect(!(try await alice.sdk.social.relationship(with: bob.id).isBlocking), "not a user block")
            try expectEqual(try await alice.sdk.users.user(bob.id).id, bob.id)
            try expectEqual(try await alice.sdk.posts.posts(by: bob.id, page: .first()).items.map(\.id), [named.id])
            // Their later anonymous interactions do not reach alice; named ones still do.
            _ = try await bob.sdk.comments.addComment(.init(target: .post(alicesPost.id), body: "y", isAnonymous: true))
            try expectEqual(try await alice.sdk.posts.post(alicesPost.id).commentCount, 0)
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 0)
            _ = try await bob.sdk.comments.addComment(.init(target: .post(alicesPost.id), body: "z"))
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 1)
            // Everyone else, and bob himself, see what they saw before.
            try expectEqual(try await carol.sdk.posts.post(carolsPost.id).commentCount, 2)
            try expectEqual(try await carol.sdk.posts.post(first.id).id, first.id)
            try expectEqual(try await bob.sdk.comments.comments(on: .post(carolsPost.id), page: .first()).items.count, 2)
            try expect(
                try await bob.sdk.comments.comments(on: .post(carolsPost.id), page: .first()).items
                    .contains { $0.comment.id == onCarols.id }, "bob still sees his comment")
        },
        ConformanceCheck("anonymity", "blockingTheAuthorOfAnAnonymousCommentHidesTheirAnonymousPostsToo") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let alicesPost = try await alice.sdk.posts.publish(.init(title: "Alice asks", body: "?"))
            let anonymous = try await bob.sdk.posts.publish(.init(title: "Troll", body: "x", isAnonymous: true))
            let comment = try await bob.sdk.comments.addComment(.init(target: .post(alicesPost.id), body: "x", isAnonymous: true))
            try await alice.sdk.social.blockAuthor(of: .comment(comment.id))
            try await expectError(.notFound) { try await alice.sdk.posts.post(anonymous.id) }
            try expectEqual(try await alice.sdk.posts.post(alicesPost.id).commentCount, 0)
            try await alice.sdk.social.blockAuthor(of: .comment(comment.id))  // hidden now, but still hers to block
        },
        ConformanceCheck("anonymity", "anonymousAuthorBlocksCanBeLiftedTogetherWithoutNamingAnyone") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let bobs = try await bob.sdk.posts.publish(.init(title: "Troll", body: "x", isAnonymous: true))
            let carols = try await carol.sdk.posts.publish(.init(title: "Also", body: "y", isAnonymous: true))
            try await alice.sdk.social.block(carol.id)
            try expectEqual(try await alice.sdk.social.unblockAnonymousAuthors(), 0, "nothing hidden yet")
            try await alice.sdk.social.blockAuthor(of: .post(bobs.id))
            try await alice.sdk.social.blockAuthor(of: .post(carols.id))
            try await expectError(.notFound) { try await alice.sdk.posts.post(bobs.id) }
            try expectEqual(try await alice.sdk.social.unblockAnonymousAuthors(), 2)
            try expectEqual(try await alice.sdk.posts.post(bobs.id).author, nil, "shown again, still anonymous")
            try expectEqual(try await alice.sdk.posts.post(carols.id).author, nil)
            try expectEqual(
                try await alice.sdk.social.blockedUsers(page: .first()).items.map(\.id), [carol.id], "named blocks stay")
            try expectEqual(try await alice.sdk.social.unblockAnonymousAuthors(), 0)
        },
        ConformanceCheck("anonymity", "theImagesOfAnAnonymousPostFollowThePostNotItsHiddenAuthor") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let image = try await bob.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png"))
            let anonymous = try await bob.sdk.posts.publish(.init(title: "Look", body: "x", images: [image], isAnonymous: true))
            try await alice.sdk.social.block(bob.id)
            try expectEqual(try await alice.sdk.posts.post(anonymous.id).images, [image])
            try expectEqual(try await alice.sdk.attachments.data(for: image.id), tinyPNG, "a block does not break the image")
            try await alice.sdk.social.unblock(bob.id)
            try await alice.sdk.social.blockAuthor(of: .post(anonymous.id))
            try await expectError(.notFound) { try await alice.sdk.attachments.data(for: image.id) }
        },
        ConformanceCheck("anonymity", "anAuthorWhoWithdrawsTakesTheirAnonymousNotificationsAlong") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let alicesPost = try await alice.sdk.posts.publish(.init(title: "Alice asks", body: "?"))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(alicesPost.id), body: "named"))
            _ = try await carol.sdk.comments.addComment(.init(target: .post(alicesPost.id), body: "anon", isAnonymous: true))
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 2)
            try await carol.sdk.accounts.withdraw()
            let left = try await alice.sdk.notifications.notifications(page: .first()).items
            try expectEqual(left.map(\.actor?.id), [bob.id], "the anonymous comment and its notification went with carol")
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 1)
        },
        ConformanceCheck("anonymity", "blockingTheAuthorOfNamedOwnOrUnknownContent") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let named = try await bob.sdk.posts.publish(.init(title: "Bob", body: "named"))
            try await alice.sdk.social.blockAuthor(of: .post(named.id))
            try expectEqual(try await alice.sdk.social.blockedUsers(page: .first()).items.map(\.id), [bob.id], "a user block")
            let own = try await alice.sdk.posts.publish(.init(title: "Mine", body: "x", isAnonymous: true))
            try await expectError(.invalidInput, field: "content") { try await alice.sdk.social.blockAuthor(of: .post(own.id)) }
            try await expectError(.notFound) { try await alice.sdk.social.blockAuthor(of: .post(Post.ID(UUID()))) }
            try await expectError(.notFound) { try await alice.sdk.social.blockAuthor(of: .comment(Comment.ID(UUID()))) }
        },
        ConformanceCheck("anonymity", "anAnonymousShareDoesNotLeadBackToItsEntry") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(title: "Mine", body: "Shared entry", visibility: .shared))
            let post = try await alice.sdk.posts.share(entry.id, isAnonymous: true)
            try expectEqual(post.source, .diary(entry.id), "the author sees where it came from")
            let seen = try await bob.sdk.posts.post(post.id)
            try expectEqual(seen.source, .original, "others do not")
            try expectEqual(try await bob.sdk.posts.feed(page: .first()).items.map(\.source), [.original])
            let encoded = String(decoding: try JSONEncoder.diary().encode(seen), as: UTF8.self)
            try expect(!encoded.lowercased().contains(entry.id.rawValue.uuidString.lowercased()), "no link to the entry: \(encoded)")
            let named = try await alice.sdk.posts.share(entry.id, isAnonymous: false)
            try expectEqual(try await bob.sdk.posts.post(named.id).source, .diary(entry.id), "a named share keeps its source")
        },
        ConformanceCheck("anonymity", "anAnonymousShareShowsCopiesOfTheEntrysImagesNotTheEntrysOwn") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let image = try await alice.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png"))
            let entry = try await alice.sdk.diaries.write(
                .init(title: "Pictured", body: "With a picture", images: [image], visibility: .shared))
            let post = try await alice.sdk.posts.share(entry.id, isAnonymous: true)
            let seen = try await bob.sdk.posts.post(post.id)
            try expectEqual(seen.images.count, 1)
            try expect(
                Set(seen.images.map(\.id)).isDisjoint(with: try await bob.sdk.diaries.entry(entry.id).images.map(\.id)),
                "the anonymous post shares no attachment id with the entry")
            try expectEqual(try await bob.sdk.attachments.data(for: seen.images[0].id), tinyPNG, "the copy loads")
            try expectEqual(seen.images[0].contentType, image.contentType)
            let named = try await alice.sdk.posts.share(entry.id, isAnonymous: false)
            try expectEqual(named.images.map(\.id), [image.id], "a named share shows the entry's own images")
            try await alice.sdk.posts.delete(post.id)
            try expectEqual(try await bob.sdk.attachments.data(for: image.id), tinyPNG, "the entry's image outlives the copy")
        },
    ]
}
