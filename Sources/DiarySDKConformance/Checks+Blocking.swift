import DiarySDK
import Foundation

extension ConformanceSuite {
    static let blockingChecks: [ConformanceCheck] = [
        ConformanceCheck("blocking", "blockedAuthorsNamedPostsDisappearFromFeedSearchAndLookup") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await bob.sdk.posts.publish(.init(title: "Bob's swift post", body: "B", tags: ["swift"]))
            let anonymous = try await bob.sdk.posts.publish(.init(title: "Bob anon", body: "B", isAnonymous: true))
            try await alice.sdk.social.block(bob.id)
            // Bob's anonymous post stays: hiding it would tell alice that bob wrote it.
            try expectEqual(try await alice.sdk.posts.feed(page: .first()).items.map(\.id), [anonymous.id])
            try expectEqual(try await alice.sdk.posts.search(.init(tags: ["swift"]), page: .first()).items.count, 0)
            try await expectError(.notFound) { try await alice.sdk.posts.post(post.id) }
            try expectEqual(try await alice.sdk.posts.post(anonymous.id).author, nil)
            let bobsFeed = try await bob.sdk.posts.feed(page: .first()).items
            try expect(bobsFeed.allSatisfy(\.isMine), "bob still sees his own posts")
        },
        ConformanceCheck("blocking", "theBlockedUserCanNoLongerFindFollowOrCommentOnTheBlocker") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "Alice", body: "B"))
            let entry = try await alice.sdk.diaries.write(.init(body: "Shared", visibility: .shared))
            try await alice.sdk.social.block(bob.id)
            try await expectError(.notFound) { try await bob.sdk.users.user(alice.id) }
            try expectEqual(try await bob.sdk.users.searchUsers("ali", page: .first()).items.count, 0)
            try await expectError(.notFound) { try await bob.sdk.social.follow(alice.id) }
            try await expectError(.notFound) { try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "hi")) }
            try await expectError(.notFound) { try await bob.sdk.diaries.entry(entry.id) }
            try await expectError(.notFound) { try await bob.sdk.posts.posts(by: alice.id, page: .first()) }
            try await expectError(.notFound) { try await bob.sdk.diaries.calendar(month("2026-03"), of: alice.id) }
        },
        ConformanceCheck("blocking", "blockedUsersCommentsAndLikesDisappearForTheBlocker") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let post = try await carol.sdk.posts.publish(.init(title: "Carol", body: "B"))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "Bob was here"))
            let aliceComment = try await alice.sdk.comments.addComment(.init(target: .post(post.id), body: "Alice too"))
            _ = try await bob.sdk.posts.like(post.id)
            _ = try await alice.sdk.posts.like(post.id)
            try await alice.sdk.social.block(bob.id)
            let threads = try await alice.sdk.comments.comments(on: .post(post.id), page: .first()).items
            try expectEqual(threads.map(\.comment.id), [aliceComment.id])
            let seen = try await alice.sdk.posts.post(post.id)
            try expectEqual(seen.likeCount, 1, "bob's like is not counted for alice")
            try expectEqual(seen.commentCount, 1)
            try expectEqual(try await carol.sdk.posts.post(post.id).likeCount, 2, "carol still sees both")
            try await expectError(.notFound) { try await alice.sdk.posts.likedPosts(by: bob.id, page: .first()) }
        },
        ConformanceCheck("blocking", "blockingEndsFollowsBothWaysAndHidesFromFollowerLists") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            try await alice.sdk.social.follow(bob.id)
            try await bob.sdk.social.follow(alice.id)
            try await bob.sdk.social.follow(carol.id)
            try await alice.sdk.social.follow(carol.id)
            try await alice.sdk.social.block(bob.id)
            let relationship = try await alice.sdk.social.relationship(with: bob.id)
            try expect(!relationship.isFollowing && !relationship.isFollowedBy && relationship.isBlocking, "\(relationship)")
            let carolsFollowers = try await alice.sdk.social.followers(of: carol.id, page: .first()).items.map(\.id)
            try expectEqual(carolsFollowers, [alice.id], "bob is left out of carol's followers for alice")
            try expectEqual(try await carol.sdk.social.followers(of: carol.id, page: .first()).items.count, 2)
            try await expectError(.notFound) { try await bob.sdk.social.relationship(with: alice.id) }
        },
        ConformanceCheck("blocking", "unblockingRestoresVisibilityButNotFollows") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await bob.sdk.posts.publish(.init(title: "Bob", body: "B"))
            try await alice.sdk.social.follow(bob.id)
            try await alice.sdk.social.block(bob.id)
            try expectEqual(try await alice.sdk.social.blockedUsers(page: .first()).items.map(\.id), [bob.id])
            try await alice.sdk.social.unblock(bob.id)
            try expectEqual(try await alice.sdk.posts.post(post.id).id, post.id)
            try expect(!(try await alice.sdk.social.relationship(with: bob.id).isFollowing), "the follow stays ended")
            try expectEqual(try await alice.sdk.social.blockedUsers(page: .first()).items.count, 0)
        },
        ConformanceCheck("blocking", "notificationsFromABlockedUserDisappear") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "A", body: "B"))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "c"))
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 1)
            try await alice.sdk.social.block(bob.id)
            try expectEqual(try await alice.sdk.notifications.unreadCount(), 0)
            try expectEqual(try await alice.sdk.notifications.notifications(page: .first()).items.count, 0)
        },
        ConformanceCheck("blocking", "blockingYourselfOrNobodyIsRejected") { context in
            let alice = try await context.user("alice")
            try await expectError(.invalidInput, field: "userID") { try await alice.sdk.social.block(alice.id) }
            try await expectError(.notFound) { try await alice.sdk.social.block(User.ID(UUID())) }
        },
    ]

    static let anonymityChecks: [ConformanceCheck] = [
        ConformanceCheck("anonymity", "anonymousPostsHideTheirAuthorFromEveryoneElse") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "Secret", body: "Shh", isAnonymous: true))
            let seen = try await bob.sdk.posts.post(post.id)
            try expectEqual(seen.author, nil)
            try expect(!seen.isMine && seen.isAnonymous, "bob sees an anonymous post")
            let feed = try await bob.sdk.posts.feed(page: .first()).items
            try expectEqual(feed.map(\.author), [nil])
            let own = try await alice.sdk.posts.post(post.id)
            try expectEqual(own.author?.id, alice.id, "the author still sees their own name")
            try expect(own.isMine, "and can manage it")
            let encoded = String(decoding: try JSONEncoder.diary().encode(seen), as: UTF8.self)
            try expect(!encoded.contains(alice.id.description) && !encoded.contains("alice"), "nothing in the value names alice")
        },
        ConformanceCheck("anonymity", "anonymousCommentsAndTheirNotificationsHideTheirAuthor") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "Ask", body: "me"))
            let comment = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "psst", isAnonymous: true))
            let threads = try await alice.sdk.comments.comments(on: .post(post.id), page: .first()).items
            try expectEqual(threads.first?.comment.author, nil)
            try expectEqual(try await bob.sdk.comments.comments(on: .post(post.id), page: .first()).items.first?.comment.author?.id, bob.id)
            let note = try await alice.sdk.notifications.notifications(page: .first()).items.first
            try expectEqual(note?.kind, .commentOnPost)
            try expectEqual(note?.actor, nil)
            try expectEqual(note?.commentID, comment.id)
        },
        ConformanceCheck("anonymity", "anonymousPostsStayOffTheAuthorsPublicListsAndLikes") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "Anon", body: "B", isAnonymous: true))
            _ = try await alice.sdk.posts.like(post.id)
            try expectEqual(try await bob.sdk.posts.posts(by: alice.id, page: .first()).items.count, 0)
            try expectEqual(try await bob.sdk.posts.likedPosts(by: alice.id, page: .first()).items.count, 0)
            try expectEqual(try await bob.sdk.diaries.calendar(month("2026-03"), of: alice.id).days.count, 0)
            try expectEqual(try await alice.sdk.posts.likedPosts(by: nil, page: .first()).items.map(\.id), [post.id])
            _ = try await bob.sdk.posts.like(post.id)
            try expectEqual(try await alice.sdk.posts.likedPosts(by: bob.id, page: .first()).items.map(\.id), [post.id])
        },
    ]
}
