import DiarySDK
import Foundation

extension ConformanceSuite {
    /// Publishes `count` posts one second apart, returning their ids oldest first.
    static func publish(_ count: Int, by actor: ConformanceUser, context: ConformanceContext, startingAt start: Date = epoch)
        async throws -> [Post.ID]
    {
        var ids: [Post.ID] = []
        for index in 0..<count {
            try await context.setNow(start.addingTimeInterval(Double(index)))
            ids.append(try await actor.sdk.posts.publish(.init(title: "Post \(index)", body: "Body \(index)")).id)
        }
        return ids
    }

    static let pagingChecks: [ConformanceCheck] = [
        ConformanceCheck("paging", "cursorPagingWalksEveryItemExactlyOnce") { context in
            let alice = try await context.user("alice")
            let ids = try await publish(7, by: alice, context: context)
            let sdk = alice.sdk
            let walked = try await collectAll(size: 3) { try await sdk.posts.feed(page: $0) }
            try expectEqual(walked.map(\.id), ids.reversed())
        },
        ConformanceCheck("paging", "insertsBetweenPagesNeitherRepeatNorSkipItems") { context in
            let alice = try await context.user("alice")
            let ids = try await publish(6, by: alice, context: context)
            let first = try await alice.sdk.posts.feed(page: .first(size: 2))
            _ = try await publish(3, by: alice, context: context, startingAt: epoch.addingTimeInterval(100))
            var seen = first.items.map(\.id)
            var next = first.nextRequest
            while let request = next {
                let page = try await alice.sdk.posts.feed(page: request)
                seen += page.items.map(\.id)
                next = page.nextRequest
            }
            try expectEqual(seen, ids.reversed(), "the walk continues where it left off")
        },
        ConformanceCheck("paging", "deletionsBetweenPagesNeitherRepeatNorSkipItems") { context in
            let alice = try await context.user("alice")
            let ids = try await publish(6, by: alice, context: context)
            let first = try await alice.sdk.posts.feed(page: .first(size: 2))
            try await alice.sdk.posts.delete(first.items[1].id)  // the cursor's own item
            try await alice.sdk.posts.delete(ids[0])
            var seen = first.items.map(\.id)
            var next = first.nextRequest
            while let request = next {
                let page = try await alice.sdk.posts.feed(page: request)
                seen += page.items.map(\.id)
                next = page.nextRequest
            }
            try expectEqual(seen, Array(ids.reversed().dropLast()))
        },
        ConformanceCheck("paging", "aSavedCursorResumesAfterEncoding") { context in
            let alice = try await context.user("alice")
            let ids = try await publish(5, by: alice, context: context)
            let first = try await alice.sdk.posts.feed(page: .first(size: 2))
            let saved = try JSONEncoder().encode(first.nextCursor)
            let cursor = try JSONDecoder().decode(PageCursor.self, from: saved)
            let second = try await alice.sdk.posts.feed(page: .after(cursor, size: 2))
            try expectEqual(second.items.map(\.id), [ids[2], ids[1]])
        },
        ConformanceCheck("paging", "pageNumbersSayWhichPageIsTheLast") { context in
            let alice = try await context.user("alice")
            let ids = try await publish(5, by: alice, context: context)
            let first = try await alice.sdk.posts.feed(page: .number(1, size: 2))
            try expectEqual(first.totalPages, 3)
            try expect(!first.isLastPage, "page 1 of 3")
            let last = try await alice.sdk.posts.feed(page: .number(3, size: 2))
            try expectEqual(last.items.map(\.id), [ids[0]])
            try expect(last.isLastPage, "page 3 of 3 is the last")
            try expectEqual(last.nextRequest, nil)
            let beyond = try await alice.sdk.posts.feed(page: .number(4, size: 2))
            try expect(beyond.items.isEmpty && beyond.isLastPage, "past the end is empty and last")
        },
        ConformanceCheck("paging", "invalidPageSizesNumbersAndCursorsAreRejected") { context in
            let alice = try await context.user("alice")
            try await expectError(.invalidInput, field: "size") { try await alice.sdk.posts.feed(page: .first(size: 0)) }
            try await expectError(.invalidInput, field: "size") { try await alice.sdk.posts.feed(page: .first(size: 101)) }
            try await expectError(.invalidInput, field: "page") { try await alice.sdk.posts.feed(page: .number(0)) }
            try await expectError(.invalidInput, field: "cursor") {
                try await alice.sdk.posts.feed(page: .after(PageCursor(rawValue: "not-a-cursor")))
            }
        },
        ConformanceCheck("paging", "pageNumbersTooLargeToReachAreRejectedOnEveryListing") { context in
            let alice = try await context.user("alice")
            _ = try await publish(3, by: alice, context: context)
            let sdk = alice.sdk
            // (number - 1) × size overflows for these: a typed error naming the field, never a crash.
            for number in [4_611_686_018_427_387_904, Int.max, PageRequest.maximumPageNumber + 1] {
                try await expectError(.invalidInput, field: "page") { try await sdk.posts.feed(page: .number(number, size: 100)) }
                try await expectError(.invalidInput, field: "page") {
                    try await sdk.diaries.entries(.init(), page: .number(number, size: 100))
                }
                try await expectError(.invalidInput, field: "page") {
                    try await sdk.notifications.notifications(page: .number(number, size: 100))
                }
                try await expectError(.invalidInput, field: "page") {
                    try await sdk.social.followers(of: alice.id, page: .number(number, size: 1))
                }
            }
            let farthest = try await sdk.posts.feed(page: .number(PageRequest.maximumPageNumber, size: 100))
            try expect(farthest.items.isEmpty && farthest.isLastPage, "the largest page number is an empty last page")
            try expectEqual(farthest.pageNumber, PageRequest.maximumPageNumber)
        },
        ConformanceCheck("paging", "pagingUnderConcurrentInsertsSeesEveryEarlierItemOnce") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let ids = try await publish(12, by: alice, context: context)
            try await context.setNow(epoch.addingTimeInterval(500))
            let walked = try await withThrowingTaskGroup(of: [Post.ID].self) { group in
                group.addTask {
                    for index in 0..<10 { _ = try await bob.sdk.posts.publish(.init(title: "Live \(index)", body: "x")) }
                    return []
                }
                group.addTask {
                    let sdk = alice.sdk
                    return try await collectAll(size: 3) { try await sdk.posts.feed(page: $0) }.map(\.id)
                }
                var result: [Post.ID] = []
                for try await ids in group where !ids.isEmpty { result = ids }
                return result
            }
            let earlier = walked.filter { Set(ids).contains($0) }
            try expectEqual(earlier, ids.reversed(), "every earlier post once, in order")
        },
        ConformanceCheck("paging", "pageSequenceWalksAnyListingToTheEnd") { context in
            let alice = try await context.user("alice")
            for index in 0..<5 { _ = try await alice.sdk.diaries.write(.init(day: day("2026-03-0\(index + 1)"), body: "E\(index)")) }
            let sdk = alice.sdk
            var count = 0
            for try await _ in PageSequence(first: .first(size: 2), fetch: { try await sdk.diaries.entries(.init(), page: $0) }).items {
                count += 1
            }
            try expectEqual(count, 5)
        },
    ]
}
