import DiarySDK
import Foundation

let tinyPNG = Data(
    base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!

extension ConformanceSuite {
    static let attachmentChecks: [ConformanceCheck] = [
        ConformanceCheck("attachments", "uploadedImagesAttachToPostsAndOthersCanReadThem") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let image = try await alice.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png"))
            try expectEqual(image.byteCount, tinyPNG.count)
            let post = try await alice.sdk.posts.publish(.init(title: "Photo", body: "Look", images: [image]))
            try expectEqual(post.images, [image])
            try expectEqual(try await bob.sdk.attachments.data(for: image.id), tinyPNG)
        },
        ConformanceCheck("attachments", "uploadsMustBeNonEmptyImagesOfTheirDeclaredType") { context in
            let alice = try await context.user("alice")
            try await expectError(.invalidInput, field: "data") {
                try await alice.sdk.attachments.upload(.init(data: Data(), contentType: "image/png"))
            }
            try await expectError(.invalidInput, field: "data") {
                try await alice.sdk.attachments.upload(.init(data: Data("<html>".utf8), contentType: "image/png"))
            }
            try await expectError(.invalidInput, field: "contentType") {
                try await alice.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/jpeg"))
            }
            try await expectError(.invalidInput, field: "data") {
                let big = tinyPNG + Data(count: Validation.maximumAttachmentBytes)
                return try await alice.sdk.attachments.upload(.init(data: big, contentType: "image/png"))
            }
        },
        ConformanceCheck("attachments", "contentCannotUseAnotherUsersImage") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let image = try await alice.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png"))
            try await expectError(.invalidInput, field: "images") {
                try await bob.sdk.posts.publish(.init(title: "Stolen", body: "Not mine", images: [image]))
            }
            try await expectError(.invalidInput, field: "images") {
                try await bob.sdk.diaries.write(.init(body: "Not mine", images: [image]))
            }
        },
        ConformanceCheck("attachments", "moreThanFourImagesAreRejected") { context in
            let alice = try await context.user("alice")
            var images: [ImageReference] = []
            for _ in 0..<5 { images.append(try await alice.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png"))) }
            let error = try await expectError(.invalidInput, field: "images") {
                try await alice.sdk.posts.publish(.init(title: "Many", body: "Too many", images: images))
            }
            try expectEqual(error.reason, .tooMany)
            let post = try await alice.sdk.posts.publish(.init(title: "Four", body: "Fine", images: Array(images.prefix(4))))
            try expectEqual(post.images.count, 4)
        },
        ConformanceCheck("attachments", "deletingContentRemovesItsImages") { context in
            let alice = try await context.user("alice")
            let image = try await alice.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png"))
            let post = try await alice.sdk.posts.publish(.init(title: "Photo", body: "Look", images: [image]))
            try await alice.sdk.posts.delete(post.id)
            try await expectError(.notFound) { try await alice.sdk.attachments.data(for: image.id) }
        },
        ConformanceCheck("attachments", "imagesOfPrivateEntriesStayPrivate") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let image = try await alice.sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png"))
            _ = try await alice.sdk.diaries.write(.init(body: "Secret photo", images: [image]))
            try await expectError(.notFound) { try await bob.sdk.attachments.data(for: image.id) }
            try expectEqual(try await alice.sdk.attachments.data(for: image.id), tinyPNG)
        },
    ]

    static let diaryChecks: [ConformanceCheck] = [
        ConformanceCheck("diaries", "writeStoresTheEntryOnTodayInTheAuthorsTimeZone") { context in
            let alice = try await context.user("alice", timeZone: "Asia/Seoul")
            try await context.setNow(instant("2026-03-10T15:30:00Z"))  // 00:30 on the 11th in Seoul
            let entry = try await alice.sdk.diaries.write(.init(title: " Night ", body: "  Late thoughts ", mood: .calm, tags: ["#til", "swift", "TIL"]))
            try expectEqual(entry.day, day("2026-03-11"))
            try expectEqual(entry.title, "Night")
            try expectEqual(entry.body, "Late thoughts")
            try expectEqual(entry.tags, ["til", "swift"], "tags are trimmed, de-hashed and de-duplicated")
            try expectEqual(entry.visibility, .private)
            try expectEqual(entry.createdAt, instant("2026-03-10T15:30:00Z"))
            try expectEqual(try await alice.sdk.diaries.entry(entry.id), entry, "an entry reads back exactly")
        },
        ConformanceCheck("diaries", "identicalWritesAtOnceWriteOnceButOneAfterTheOtherWriteTwice") { context in
            let alice = try await context.user("alice")
            let sdk = alice.sdk
            // Two identical calls at once, tried up to three times with a fresh draft each: on a loaded machine the
            // second call's task can start only after the first has finished (a local write takes microseconds),
            // and then there is nothing to join. A backend that never joins fails all three tries.
            var joinedDraft: DiaryDraft?
            for attempt in 1...3 where joinedDraft == nil {
                let draft = DiaryDraft(body: "Double tap \(attempt)", visibility: .shared)
                async let first = sdk.diaries.write(draft)
                async let second = sdk.diaries.write(draft)
                let (one, two) = try await (first, second)
                if one == two { joinedDraft = draft }
            }
            let draft = try expectSome(joinedDraft, "two identical writes at once to give both callers the one entry")
            var joinedPost: PostDraft?
            for attempt in 1...3 where joinedPost == nil {
                let post = PostDraft(title: "Tap", body: "tap \(attempt)")
                async let firstPost = sdk.posts.publish(post)
                async let secondPost = sdk.posts.publish(post)
                let (postOne, postTwo) = try await (firstPost, secondPost)
                if postOne.id == postTwo.id { joinedPost = post }
            }
            let post = try expectSome(joinedPost, "two identical posts at once to be one")
            async let different = sdk.posts.publish(PostDraft(title: "Tap", body: "tap again"))
            async let same = sdk.posts.publish(post)
            let (three, four) = try await (different, same)
            try expect(three.id != four.id, "different writes at once are not joined")
            let entries = { try await collectAll { try await sdk.diaries.entries(.init(), page: $0) } }
            try expectEqual(try await entries().filter { $0.body == draft.body }.count, 1, "the joined write wrote once")
            _ = try await sdk.diaries.write(draft)
            try expectEqual(try await entries().filter { $0.body == draft.body }.count, 2, "a later identical write writes")
            let posts = try await collectAll { try await sdk.posts.feed(page: $0) }
            try expectEqual(posts.filter { $0.body == post.body }.count, 2, "the joined post, and the later identical one")
            try expectEqual(posts.filter { $0.body == "tap again" }.count, 1)
        },
        ConformanceCheck("diaries", "blankOrOversizedEntriesAreRejectedAndNothingIsStored") { context in
            let alice = try await context.user("alice")
            for body in ["", "   ", "\n\t "] {
                let error = try await expectError(.invalidInput, field: "body") { try await alice.sdk.diaries.write(.init(body: body)) }
                try expectEqual(error.reason, .blank)
            }
            try await expectError(.invalidInput, field: "title") {
                try await alice.sdk.diaries.write(.init(title: String(repeating: "t", count: 101), body: "ok"))
            }
            try await expectError(.invalidInput, field: "body") {
                try await alice.sdk.diaries.write(.init(body: String(repeating: "b", count: Validation.maximumBodyLength + 1)))
            }
            try await expectError(.invalidInput, field: "tags") {
                try await alice.sdk.diaries.write(.init(body: "ok", tags: (0..<11).map { "tag\($0)" }))
            }
            try await expectError(.invalidInput, field: "visibility") {
                try await alice.sdk.diaries.write(.init(body: "ok", visibility: .members))
            }
            try expectEqual(try await alice.sdk.diaries.entries(.init(), page: .first()).items.count, 0)
        },
        ConformanceCheck("diaries", "privateEntriesAreVisibleToTheirAuthorOnly") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(body: "Just for me"))
            try await expectError(.notFound) { try await bob.sdk.diaries.entry(entry.id) }
            try expectEqual(try await bob.sdk.diaries.entries(.init(authorID: alice.id), page: .first()).items.count, 0)
            try expectEqual(try await alice.sdk.diaries.entries(.init(), page: .first()).items.map(\.id), [entry.id])
        },
        ConformanceCheck("diaries", "sharedEntriesAreVisibleToOtherUsers") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(body: "For everyone", visibility: .shared))
            try expectEqual(try await bob.sdk.diaries.entry(entry.id).body, "For everyone")
            try expectEqual(try await bob.sdk.diaries.entries(.init(authorID: alice.id), page: .first()).items.map(\.id), [entry.id])
        },
        ConformanceCheck("diaries", "onlyTheAuthorEditsOrDeletesAnEntry") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(body: "Mine", visibility: .shared))
            try await expectError(.forbidden) { try await bob.sdk.diaries.edit(entry.id, .init(body: "Hacked")) }
            try await expectError(.forbidden) { try await bob.sdk.diaries.delete(entry.id) }
            try await expectError(.forbidden) { try await bob.sdk.diaries.setHidden(entry.id, true) }
            try await expectError(.forbidden) { try await bob.sdk.diaries.setFavourite(entry.id, true) }
            try expectEqual(try await alice.sdk.diaries.entry(entry.id).body, "Mine")
        },
        ConformanceCheck("diaries", "editChangesOnlyTheGivenFields") { context in
            let alice = try await context.user("alice")
            let entry = try await alice.sdk.diaries.write(.init(title: "T", body: "B", mood: .happy, tags: ["a"]))
            try await context.setNow(epoch.addingTimeInterval(60))
            let edited = try await alice.sdk.diaries.edit(entry.id, .init(body: "B2", mood: .some(nil)))
            try expectEqual(edited.title, "T")
            try expectEqual(edited.body, "B2")
            try expectEqual(edited.mood, nil)
            try expectEqual(edited.tags, ["a"])
            try expectEqual(edited.updatedAt, epoch.addingTimeInterval(60))
            try await expectError(.invalidInput, field: "body") { try await alice.sdk.diaries.edit(entry.id, .init(body: " ")) }
            try expectEqual(try await alice.sdk.diaries.entry(entry.id).body, "B2")
        },
        ConformanceCheck("diaries", "deletingAPrivateEntryRemovesIt") { context in
            let alice = try await context.user("alice")
            let entry = try await alice.sdk.diaries.write(.init(body: "Soon gone"))
            try await alice.sdk.diaries.delete(entry.id)
            try await expectError(.notFound) { try await alice.sdk.diaries.entry(entry.id) }
            try await expectError(.notFound) { try await alice.sdk.diaries.delete(entry.id) }
        },
        ConformanceCheck("diaries", "hiddenEntriesAreLeftOutUnlessAskedFor") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let entry = try await alice.sdk.diaries.write(.init(body: "Hide me", visibility: .shared))
            let hidden = try await alice.sdk.diaries.setHidden(entry.id, true)
            try expect(hidden.isHidden, "the entry is hidden")
            try expectEqual(try await alice.sdk.diaries.entries(.init(), page: .first()).items.count, 0)
            try expectEqual(try await alice.sdk.diaries.entries(.init(includeHidden: true), page: .first()).items.count, 1)
            try await expectError(.notFound) { try await bob.sdk.diaries.entry(entry.id) }
            try expectEqual(try await alice.sdk.diaries.calendar(entry.day.yearMonth, of: nil).days.count, 0)
        },
        ConformanceCheck("diaries", "favouritesCanBeListedOnTheirOwn") { context in
            let alice = try await context.user("alice")
            let first = try await alice.sdk.diaries.write(.init(body: "One"))
            _ = try await alice.sdk.diaries.write(.init(body: "Two"))
            _ = try await alice.sdk.diaries.setFavourite(first.id, true)
            let favourites = try await alice.sdk.diaries.entries(.init(favouritesOnly: true), page: .first())
            try expectEqual(favourites.items.map(\.id), [first.id])
        },
        ConformanceCheck("diaries", "entriesListNewestDayFirstAndFilterByMonthDayAndTag") { context in
            let alice = try await context.user("alice")
            let march = try await alice.sdk.diaries.write(.init(day: day("2026-03-02"), body: "March", tags: ["swift"]))
            let february = try await alice.sdk.diaries.write(.init(day: day("2026-02-27"), body: "February"))
            let later = try await alice.sdk.diaries.write(.init(day: day("2026-03-05"), body: "Later", tags: ["Swift"]))
            try expectEqual(
                try await alice.sdk.diaries.entries(.init(), page: .first()).items.map(\.id), [later.id, march.id, february.id])
            try expectEqual(
                try await alice.sdk.diaries.entries(.init(month: month("2026-03")), page: .first()).items.map(\.id),
                [later.id, march.id])
            try expectEqual(
                try await alice.sdk.diaries.entries(.init(day: day("2026-02-27")), page: .first()).items.map(\.id), [february.id])
            try expectEqual(
                try await alice.sdk.diaries.entries(.init(tag: "SWIFT"), page: .first()).items.map(\.id), [later.id, march.id])
        },
        ConformanceCheck("diaries", "entriesGroupByMonthNewestMonthFirst") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-01-30"), body: "January", bookID: book.id))
            _ = try await bob.sdk.diaries.write(.init(day: day("2026-03-02"), body: "March 2", bookID: book.id))
            _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-09"), body: "March 9", bookID: book.id))
            let groups = try await bob.sdk.diaries.entriesGroupedByMonth(.init(bookID: book.id), pageSize: 1)
            try expectEqual(groups.map(\.month), [month("2026-03"), month("2026-01")])
            try expectEqual(groups.map { $0.entries.map(\.body) }, [["March 9", "March 2"], ["January"]])
        },
    ]
}
