@_spi(Engine) import DiarySDK
import Foundation

extension ConformanceSuite {
    static let commentChecks: [ConformanceCheck] = [
        ConformanceCheck("comments", "commentsAndRepliesFormThreadsOldestFirst") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "Q", body: "Thoughts?"))
            let first = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "First"))
            try await context.setNow(epoch.addingTimeInterval(1))
            let second = try await alice.sdk.comments.addComment(.init(target: .post(post.id), body: "Second"))
            try await context.setNow(epoch.addingTimeInterval(2))
            let reply = try await alice.sdk.comments.addComment(.init(target: .post(post.id), parentID: first.id, body: "Reply"))
            let threads = try await bob.sdk.comments.comments(on: .post(post.id), page: .first()).items
            try expectEqual(threads.map(\.comment.id), [first.id, second.id])
            try expectEqual(threads[0].replies.map(\.id), [reply.id])
            try expectEqual(threads[0].comment.author?.nickname, "bob")
            try expect(threads[0].comment.isMine, "bob sees his own comment as his")
            try expectEqual(try await bob.sdk.posts.post(post.id).commentCount, 3)
        },
        ConformanceCheck("comments", "repliesGoOneLevelDeepOnTheSameTarget") { context in
            let alice = try await context.user("alice")
            let post = try await alice.sdk.posts.publish(.init(title: "Q", body: "B"))
            let other = try await alice.sdk.posts.publish(.init(title: "Q2", body: "B2"))
            let comment = try await alice.sdk.comments.addComment(.init(target: .post(post.id), body: "c"))
            let reply = try await alice.sdk.comments.addComment(.init(target: .post(post.id), parentID: comment.id, body: "r"))
            try await expectError(.invalidInput, field: "parentID") {
                try await alice.sdk.comments.addComment(.init(target: .post(post.id), parentID: reply.id, body: "deeper"))
            }
            try await expectError(.invalidInput, field: "parentID") {
                try await alice.sdk.comments.addComment(.init(target: .post(other.id), parentID: comment.id, body: "elsewhere"))
            }
        },
        ConformanceCheck("comments", "moodCommentsCanBeEditedByTheirAuthorOnly") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(body: "Mood diary", mood: .sad, visibility: .shared))
            let comment = try await bob.sdk.comments.addComment(.init(target: .diary(entry.id), body: "Cheer up", mood: .happy))
            try expectEqual(comment.mood, .happy)
            let edited = try await bob.sdk.comments.editComment(comment.id, body: "Hugs", mood: .calm)
            try expectEqual(edited.body, "Hugs")
            try expectEqual(edited.mood, .calm)
            try await expectError(.forbidden) { try await alice.sdk.comments.editComment(comment.id, body: "No", mood: nil) }
            try await expectError(.invalidInput, field: "body") { try await bob.sdk.comments.editComment(comment.id, body: " ", mood: nil) }
        },
        ConformanceCheck("comments", "theTargetsAuthorMayDeleteCommentsOnTheirContent") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let post = try await alice.sdk.posts.publish(.init(title: "Mine", body: "B"))
            let comment = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "rude"))
            _ = try await carol.sdk.comments.addComment(.init(target: .post(post.id), parentID: comment.id, body: "agreed"))
            try await expectError(.forbidden) { try await carol.sdk.comments.deleteComment(comment.id) }
            try await alice.sdk.comments.deleteComment(comment.id)
            try expectEqual(try await carol.sdk.comments.comments(on: .post(post.id), page: .first()).items.count, 0)
            try expectEqual(try await carol.sdk.posts.post(post.id).commentCount, 0, "replies go with their comment")
        },
        ConformanceCheck("comments", "commentsNeedAVisibleTargetAndText") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let secret = try await alice.sdk.diaries.write(.init(body: "Private"))
            try await expectError(.notFound) { try await bob.sdk.comments.addComment(.init(target: .diary(secret.id), body: "hi")) }
            try await expectError(.notFound) { try await bob.sdk.comments.comments(on: .diary(secret.id), page: .first()) }
            try await expectError(.invalidInput, field: "body") {
                try await alice.sdk.comments.addComment(.init(target: .diary(secret.id), body: "  "))
            }
            try await expectError(.invalidInput, field: "body") {
                try await alice.sdk.comments.addComment(.init(target: .diary(secret.id), body: String(repeating: "c", count: 1001)))
            }
            _ = try await alice.sdk.comments.addComment(.init(target: .diary(secret.id), body: "Note to self"))
        },
        ConformanceCheck("comments", "commentsAndRepliesNotifyTheAuthorsConcerned") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(body: "Shared", visibility: .shared))
            let comment = try await bob.sdk.comments.addComment(.init(target: .diary(entry.id), body: "Nice"))
            _ = try await alice.sdk.comments.addComment(.init(target: .diary(entry.id), parentID: comment.id, body: "Thanks"))
            let alicesNotes = try await alice.sdk.notifications.notifications(page: .first()).items
            try expectEqual(alicesNotes.map(\.kind), [.commentOnEntry], "no notification for your own reply")
            try expectEqual(alicesNotes.first?.diaryID, entry.id)
            let bobsNotes = try await bob.sdk.notifications.notifications(page: .first()).items
            try expectEqual(bobsNotes.map(\.kind), [.replyToComment])
        },
    ]

    static let postChecks: [ConformanceCheck] = [
        ConformanceCheck("posts", "publishedPostsAppearInTheFeedNewestFirst") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let first = try await alice.sdk.posts.publish(.init(title: "One", body: "1", tags: ["swift"]))
            try await context.setNow(epoch.addingTimeInterval(1))
            let second = try await bob.sdk.posts.publish(.init(title: "Two", body: "2"))
            let feed = try await alice.sdk.posts.feed(page: .first())
            try expectEqual(feed.items.map(\.id), [second.id, first.id])
            try expectEqual(feed.items[1].author?.nickname, "alice")
            try expect(feed.items[1].isMine && !feed.items[0].isMine, "isMine is per viewer")
            try expect(feed.isLastPage, "two posts fit one page")
        },
        ConformanceCheck("posts", "blankTitlesOrBodiesAreRejected") { context in
            let alice = try await context.user("alice")
            try await expectError(.invalidInput, field: "title") { try await alice.sdk.posts.publish(.init(title: " ", body: "b")) }
            try await expectError(.invalidInput, field: "body") { try await alice.sdk.posts.publish(.init(title: "t", body: "\n")) }
            try expectEqual(try await alice.sdk.posts.feed(page: .first()).items.count, 0)
        },
        ConformanceCheck("posts", "onlyTheAuthorEditsOrDeletesAPost") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "T", body: "B"))
            try await expectError(.forbidden) { try await bob.sdk.posts.edit(post.id, .init(title: "Hacked")) }
            try await expectError(.forbidden) { try await bob.sdk.posts.delete(post.id) }
            let edited = try await alice.sdk.posts.edit(post.id, .init(body: "B2", tags: ["x"]))
            try expectEqual(edited.title, "T")
            try expectEqual(edited.body, "B2")
            try expectEqual(edited.tags, ["x"])
        },
        ConformanceCheck("posts", "deletingAPostTakesItsCommentsAndLikes") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "T", body: "B"))
            let comment = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "c"))
            _ = try await bob.sdk.posts.like(post.id)
            try await alice.sdk.posts.delete(post.id)
            try await expectError(.notFound) { try await bob.sdk.posts.post(post.id) }
            try await expectError(.notFound) { try await bob.sdk.comments.editComment(comment.id, body: "x", mood: nil) }
            try expectEqual(try await bob.sdk.posts.likedPosts(by: nil, page: .first()).items.count, 0)
        },
        ConformanceCheck("posts", "sharingAnEntryPublishesItAsAPost") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(day: day("2026-03-09"), title: "TIL", body: "Sendable", tags: ["swift"]))
            let post = try await alice.sdk.posts.share(entry.id, isAnonymous: false)
            try expectEqual(post.source, .diary(entry.id))
            try expectEqual(post.title, "TIL")
            try expectEqual(post.day, day("2026-03-09"))
            try expectEqual(try await bob.sdk.posts.post(post.id).body, "Sendable")
            try await expectError(.notFound) { try await bob.sdk.posts.share(entry.id, isAnonymous: false) }
        },
        ConformanceCheck("posts", "searchMatchesWordsInTitleBodyAndTagsInAnyCaseOrAccent") { context in
            let alice = try await context.user("alice")
            let one = try await alice.sdk.posts.publish(.init(title: "Café culture", body: "Coffee notes", tags: ["life"]))
            let two = try await alice.sdk.posts.publish(.init(title: "Swift", body: "Structured concurrency", tags: ["swift", "til"]))
            _ = try await alice.sdk.posts.publish(.init(title: "Other", body: "Nothing"))
            try expectEqual(try await alice.sdk.posts.search(.init(text: "CAFE"), page: .first()).items.map(\.id), [one.id])
            try expectEqual(try await alice.sdk.posts.search(.init(text: "concurrency structured"), page: .first()).items.map(\.id), [two.id])
            try expectEqual(try await alice.sdk.posts.search(.init(tags: ["#TIL"]), page: .first()).items.map(\.id), [two.id])
            try expectEqual(try await alice.sdk.posts.search(.init(text: "life"), page: .first()).items.map(\.id), [one.id])
            try await expectError(.invalidInput, field: "text") { try await alice.sdk.posts.search(.init(text: "  "), page: .first()) }
        },
        ConformanceCheck("posts", "searchMatchesTheReadableTextOfHTMLPostsNotTheirMarkup") { context in
            let alice = try await context.user("alice")
            let blog = try await alice.sdk.blogs.register(
                .init(title: "B", siteURL: URL(string: "https://b.example")!, feedURL: URL(string: "https://b.example/rss")!))
            let html = ImportedItem(
                guid: "1", url: URL(string: "https://b.example/1")!, title: "Notes",
                body: #"<p class="lead">Fish <strong>&amp;</strong> chips, <em>caf&eacute;</em> &#38; tea&#x21;</p>"#
                    + #"<script>var hidden = "class";</script><a href="https://b.example/span">link</a>"#,
                tags: [], publishedAt: instant("2026-03-09T10:00:00Z"))
            _ = try await alice.sdk.blogs.importItem(html, into: blog.id)
            let imported = try await alice.sdk.posts.posts(by: nil, page: .first()).items[0]
            _ = try await alice.sdk.posts.publish(.init(title: "Plain", body: "Markup like a <b> tag typed as text"))
            let search = { (text: String) in try await alice.sdk.posts.search(.init(text: text), page: .first()).items }
            for markup in ["strong", "class", "lead", "href", "span", "hidden", "script", "amp", "eacute", "x21"] {
                try expectEqual(try await search(markup).map(\.id), [], "'\(markup)' is markup, not text")
            }
            try expectEqual(try await search("fish & chips").map(\.id), [imported.id], "entities are decoded")
            try expectEqual(try await search("cafe tea!").map(\.id), [imported.id])
            try expectEqual(try await search("link").map(\.id), [imported.id], "the text of a link is text")
            try expectEqual(try await search("<b>").count, 1, "a plain post's angle brackets are its text")
        },
        ConformanceCheck("posts", "searchFoldsTheTypographicVariantsAPhoneKeyboardTypes") { context in
            let alice = try await context.user("alice")
            let curly = try await alice.sdk.posts.publish(.init(title: "Why you shouldn’t", body: "She said “hello” — twice…"))
            let straight = try await alice.sdk.posts.publish(.init(title: "I can't", body: #"A "quoted" word"#))
            let wide = try await alice.sdk.posts.publish(.init(title: "Ｓｗｉｆｔ　６", body: "Full-width"))
            let search = { (text: String) in try await alice.sdk.posts.search(.init(text: text), page: .first()).items.map(\.id) }
            try expectEqual(try await search("shouldn't"), [curly.id], "a straight apostrophe finds a curly one")
            try expectEqual(try await search("SHOULDN‘T"), [curly.id], "any apostrophe, any case")
            try expectEqual(try await search("can’t"), [straight.id], "a curly apostrophe finds a straight one")
            try expectEqual(try await search(#""hello""#), [curly.id], "straight quotes find curly ones")
            try expectEqual(try await search("“quoted”"), [straight.id], "curly quotes find straight ones")
            try expectEqual(try await search("swift 6"), [wide.id], "full-width letters and digits")
            try expectEqual(try await search("twice..."), [curly.id], "an ellipsis character is three dots")
        },
        ConformanceCheck("posts", "likesAreIdempotentAndCounted") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "T", body: "B"))
            _ = try await bob.sdk.posts.like(post.id)
            let liked = try await bob.sdk.posts.like(post.id)
            try expectEqual(liked.likeCount, 1)
            try expect(liked.isLiked, "bob likes it")
            try expect(!(try await alice.sdk.posts.post(post.id).isLiked), "alice does not")
            let unliked = try await bob.sdk.posts.unlike(post.id)
            try expectEqual(unliked.likeCount, 0)
            _ = try await bob.sdk.posts.unlike(post.id)
            try await expectError(.notFound) { try await bob.sdk.posts.like(Post.ID(UUID())) }
        },
        ConformanceCheck("posts", "likedPostsListMostRecentlyLikedFirstForAnyUser") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let old = try await alice.sdk.posts.publish(.init(title: "Old", body: "B"))
            let new = try await alice.sdk.posts.publish(.init(title: "New", body: "B"))
            _ = try await bob.sdk.posts.like(new.id)
            try await context.setNow(epoch.addingTimeInterval(5))
            _ = try await bob.sdk.posts.like(old.id)
            try expectEqual(try await bob.sdk.posts.likedPosts(by: nil, page: .first()).items.map(\.id), [old.id, new.id])
            try expectEqual(try await alice.sdk.posts.likedPosts(by: bob.id, page: .first()).items.map(\.id), [old.id, new.id])
        },
        ConformanceCheck("posts", "myPostsIncludeAnonymousOnesButOthersNeverSeeThemListed") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let open = try await alice.sdk.posts.publish(.init(title: "Open", body: "B"))
            let anonymous = try await alice.sdk.posts.publish(.init(title: "Anon", body: "B", isAnonymous: true))
            try expectEqual(Set(try await alice.sdk.posts.posts(by: nil, page: .first()).items.map(\.id)), [open.id, anonymous.id])
            try expectEqual(try await bob.sdk.posts.posts(by: alice.id, page: .first()).items.map(\.id), [open.id])
        },
    ]
}
