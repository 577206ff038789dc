import DiarySDK
import Foundation

/// Follows a change stream for a check.
typealias ChangeRecorder = StreamRecorder<ChangeEvent>

extension StreamRecorder where Element == ChangeEvent {
    /// The changes so far, without the `opened` and `reloadRequired` events.
    var changes: [DiaryChange] { events.compactMap(\.change) }

    /// Waits until `done` holds for what arrived, for at most fifteen seconds (a bound for liveness: locally an event
    /// arrives at once, but a PostgreSQL store delivers a commit only once every transaction older than it has ended,
    /// which under a loaded test run can take seconds).
    /// - Throws: A failure naming what arrived when `done` never held.
    @discardableResult
    func wait(
        for what: String, file: StaticString = #fileID, line: UInt = #line, until done: ([ChangeEvent]) -> Bool
    ) async throws -> [ChangeEvent] {
        let deadline = Date().addingTimeInterval(15)
        while !done(self.events), Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        let events = self.events
        try expect(done(events), "waited for \(what); got \(ChangeRecorder.describe(events))", file: file, line: line)
        return events
    }

    /// Waits for the first event and returns it.
    func first(file: StaticString = #fileID, line: UInt = #line) async throws -> ChangeEvent {
        try await wait(for: "the first event", file: file, line: line) { !$0.isEmpty }[0]
    }

    /// Waits until a change to `id` of `kind` arrived.
    func waitFor(_ kind: DiaryChange.Kind, of id: UUID, file: StaticString = #fileID, line: UInt = #line) async throws {
        try await wait(for: "\(kind) of \(id)", file: file, line: line) { events in
            events.contains { $0.change?.id == id && $0.change?.kind == kind }
        }
    }

    static func describe(_ events: [ChangeEvent]) -> String {
        let lines = events.map { event -> String in
            switch event {
            case .opened(let position): "opened(\(position))"
            case .reloadRequired(let position): "reloadRequired(\(position))"
            case .changed(let change): "\(change.entity) \(change.kind) \(change.id.uuidString.prefix(8)) @\(change.position)"
            }
        }
        return "[" + lines.joined(separator: ", ") + "]"
    }
}

extension ConformanceSuite {
    static let liveChangeChecks: [ConformanceCheck] = [
        ConformanceCheck("changes", "aStreamOpensAtTheHeadThenDeliversEachChangeInOrderWithItsPositionAndValue") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let feed = ChangeRecorder(alice.sdk.changes.changes(.feed))
            guard case .opened(let head) = try await feed.first() else {
                throw ConformanceFailure.expected("the stream to open first", got: ChangeRecorder.describe(feed.events))
            }
            var posts: [Post] = []
            for title in ["one", "two", "three"] {
                posts.append(try await bob.sdk.posts.publish(.init(title: title, body: "in order")))
            }
            try await feed.waitFor(.inserted, of: posts[2].id.rawValue)
            let changes = feed.changes
            try expectEqual(changes.map(\.id), posts.map(\.id.rawValue), "one change per post, in commit order")
            try expect(changes.allSatisfy { $0.entity == .post && $0.kind == .inserted }, "\(changes)")
            try expectEqual(Set(changes.map(\.position) + [head]).count, 4, "every position differs from the others")
            for (change, post) in zip(changes, posts) {
                guard case .post(let value)? = change.value else {
                    throw ConformanceFailure.expected("the post as a value", got: "\(String(describing: change.value))")
                }
                try expectEqual(value.title, post.title)
                try expectEqual(value.author?.id, bob.id, "a named author stays named")
                try expect(!value.isMine, "the value is the post as alice sees it")
            }
            // A change to something that is gone carries no value.
            try await bob.sdk.posts.delete(posts[0].id)
            try await feed.waitFor(.deleted, of: posts[0].id.rawValue)
            let deleted = feed.changes.last { $0.kind == .deleted }
            try expect(deleted?.value == nil, "a deletion carries no value: \(String(describing: deleted))")
        },
        ConformanceCheck("changes", "aStreamResumedAfterAPositionReceivesExactlyWhatItMissedThenLiveChanges") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let online = ChangeRecorder(alice.sdk.changes.changes(.feed))
            _ = try await online.first()
            let seen = try await bob.sdk.posts.publish(.init(title: "seen", body: "while online"))
            try await online.waitFor(.inserted, of: seen.id.rawValue)
            let saved = try expectSome(online.changes.last?.position, "the last change's position")
            await online.stop()

            // Offline: three changes alice may see, and one she may not (bob's private entry).
            let missed1 = try await bob.sdk.posts.publish(.init(title: "missed", body: "one"))
            _ = try await bob.sdk.diaries.write(.init(body: "private"))
            _ = try await bob.sdk.posts.like(missed1.id)
            let missed2 = try await bob.sdk.posts.publish(.init(title: "missed", body: "two"))

            let resumed = ChangeRecorder(alice.sdk.changes.changes(.everything, after: saved))
            try expectEqual(try await resumed.first(), .opened(saved), "the stream resumes where it was asked to")
            try await resumed.waitFor(.inserted, of: missed2.id.rawValue)
            let live = try await bob.sdk.posts.publish(.init(title: "live", body: "after the resume"))
            try await resumed.waitFor(.inserted, of: live.id.rawValue)
            let posts = resumed.changes.filter { $0.entity == .post }
            try expectEqual(
                posts.map { [$0.id.uuidString, $0.kind.rawValue] },
                [
                    [missed1.id.rawValue.uuidString, "inserted"], [missed1.id.rawValue.uuidString, "updated"],
                    [missed2.id.rawValue.uuidString, "inserted"], [live.id.rawValue.uuidString, "inserted"],
                ],
                "exactly the missed post changes, in order, then the live one")
            try expect(!resumed.changes.contains { $0.entity == .diary }, "bob's private entry never arrives")
            try expect(!resumed.changes.contains { $0.id == seen.id.rawValue }, "nothing seen before is repeated")
            try expect(!resumed.events.contains { if case .reloadRequired = $0 { true } else { false } }, "no reload")
            let positions = resumed.changes.map(\.position)
            try expectEqual(Set(positions).count, positions.count, "no position twice")
        },
        ConformanceCheck("changes", "aStreamResumedAfterOneChangeOfATransactionCarriesOnWithTheNextOne") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let post = try await alice.sdk.posts.publish(.init(title: "Mine", body: "comment on it"))
            let stream = ChangeRecorder(alice.sdk.changes.changes())
            _ = try await stream.first()
            // One transaction, two changes for alice: the comment and the notification it causes.
            let comment = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "hello"))
            try await stream.wait(for: "the comment and its notification") { events in
                events.contains { $0.change?.id == comment.id.rawValue }
                    && events.contains { $0.change?.entity == .notification }
            }
            let both = stream.changes.filter { $0.entity == .comment || $0.entity == .notification }
            try expectEqual(both.count, 2, "\(both)")
            try expect(both[0].position != both[1].position, "each change of the transaction has its own position")
            await stream.stop()

            // The screen applied the first of the two, then went away.
            let resumed = ChangeRecorder(alice.sdk.changes.changes(.everything, after: both[0].position))
            try expectEqual(try await resumed.first(), .opened(both[0].position))
            let marker = try await bob.sdk.posts.publish(.init(title: "Marker", body: "after"))
            try await resumed.waitFor(.inserted, of: marker.id.rawValue)
            try expectEqual(
                resumed.changes.map(\.id), [both[1].id, marker.id.rawValue],
                "the second change of the transaction, then the live one; nothing repeated")
        },
        ConformanceCheck("changes", "aReplayedChangeShowsTheThingAsItIsNowNeverAsItWas") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let stream = ChangeRecorder(alice.sdk.changes.changes())
            guard case .opened(let before) = try await stream.first() else {
                throw ConformanceFailure.expected("the stream to open", got: ChangeRecorder.describe(stream.events))
            }
            await stream.stop()
            // While alice is away: bob shares an entry with a phone number, then edits it out and makes it private.
            let entry = try await bob.sdk.diaries.write(.init(body: "call me at 555-0100", visibility: .shared))
            _ = try await bob.sdk.diaries.edit(entry.id, DiaryEdit(body: "redacted", visibility: .private))
            let marker = try await bob.sdk.posts.publish(.init(title: "Marker", body: "after"))

            let resumed = ChangeRecorder(alice.sdk.changes.changes(.everything, after: before))
            try await resumed.waitFor(.inserted, of: marker.id.rawValue)
            let entryChanges = resumed.changes.filter { $0.id == entry.id.rawValue }
            try expect(!entryChanges.isEmpty, "alice could see the entry once: its changes arrive, as ids")
            try expect(entryChanges.allSatisfy { $0.value == nil }, "no value of an entry alice may no longer see: \(entryChanges)")
            // Probed by words, not by the digits: "555" also turns up in random ids and positions.
            try expect(!"\(resumed.events)".contains("call me"), "the old text never arrives")
        },
        ConformanceCheck("changes", "aMemberWhoLeavesABookLearnsItChangedButNotWhatItHolds") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(bob, members: [alice])
            let stream = ChangeRecorder(alice.sdk.changes.changes(.book(book.id)))
            _ = try await stream.first()
            try await alice.sdk.books.leave(book.id)
            try await stream.wait(for: "the membership change") { $0.contains { $0.change?.entity == .book } }
            _ = try await bob.sdk.diaries.write(.init(body: "after alice left", bookID: book.id))
            _ = try await bob.sdk.books.updateBook(book.id, BookEdit(title: "Renamed"))
            let marker = try await bob.sdk.posts.publish(.init(title: "Marker", body: "after"))
            // The marker is not in the book's filter: wait on an unfiltered stream for it, then look at the book's.
            let all = ChangeRecorder(alice.sdk.changes.changes(.everything, after: stream.events.first?.position))
            try await all.waitFor(.inserted, of: marker.id.rawValue)
            let books = all.changes.filter { $0.entity == .book || $0.entity == .diary }
            try expect(books.allSatisfy { $0.value == nil }, "nothing of the book after leaving it: \(books)")
            try expect(!all.changes.contains { $0.entity == .diary }, "no entry of the book after leaving it: \(books)")
        },
        ConformanceCheck("changes", "aPositionTheLogCannotResumeFromSaysReloadRequiredThenCarriesOn") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            // A position no store of this backend gave (saved from another server, or before the store was re-created).
            let foreign = try expectSome(ChangePosition("zz9.elsewhere.1"), "a well-formed position")
            let stream = ChangeRecorder(alice.sdk.changes.changes(.feed, after: foreign))
            guard case .reloadRequired(let head) = try await stream.first() else {
                throw ConformanceFailure.expected("reloadRequired first", got: ChangeRecorder.describe(stream.events))
            }
            try expect(head != foreign, "the reload carries the log's own position")
            let post = try await bob.sdk.posts.publish(.init(title: "after", body: "the reload"))
            try await stream.waitFor(.inserted, of: post.id.rawValue)
            try expectEqual(stream.events.count, 2, "the reload, then the live change: \(ChangeRecorder.describe(stream.events))")
            // Resuming from the reload's position works like any other.
            let again = ChangeRecorder(alice.sdk.changes.changes(.feed, after: head))
            try expectEqual(try await again.first(), .opened(head))
            try await again.waitFor(.inserted, of: post.id.rawValue)
        },
        ConformanceCheck("changes", "aPositionOlderThanTheRetainedLogSaysReloadRequired") { context in
            guard let retention = context.world.changeLogRetention else { return }
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let stream = ChangeRecorder(alice.sdk.changes.changes(.feed))
            // Opened first: a post committed before the stream registers is already behind its head and never arrives.
            _ = try await stream.first()
            let first = try await bob.sdk.posts.publish(.init(title: "0", body: "the first"))
            try await stream.waitFor(.inserted, of: first.id.rawValue)
            let old = try expectSome(stream.changes.first?.position, "the first change's position")
            await stream.stop()
            for number in 1...(retention + 1) {
                _ = try await bob.sdk.posts.publish(.init(title: "\(number)", body: "past the retention"))
            }
            let late = ChangeRecorder(alice.sdk.changes.changes(.feed, after: old))
            guard case .reloadRequired = try await late.first() else {
                throw ConformanceFailure.expected("reloadRequired past a retention of \(retention)", got: ChangeRecorder.describe(late.events))
            }
        },
        ConformanceCheck("changes", "aFilterDeliversOnlyWhatItsScreenShows") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            let other = try await bob.sdk.posts.publish(.init(title: "Other", body: "post"))
            let post = try await alice.sdk.posts.publish(.init(title: "Watched", body: "post"))
            let bookStream = ChangeRecorder(alice.sdk.changes.changes(.book(book.id)))
            let postStream = ChangeRecorder(alice.sdk.changes.changes(.post(post.id)))
            let notifications = ChangeRecorder(alice.sdk.changes.changes(.notifications))
            _ = try await bookStream.first()
            _ = try await postStream.first()
            _ = try await notifications.first()

            _ = try await bob.sdk.diaries.write(.init(body: "outside the book", visibility: .shared))
            _ = try await bob.sdk.posts.like(other.id)
            let inBook = try await bob.sdk.diaries.write(.init(body: "in the book", bookID: book.id))
            let onEntry = try await alice.sdk.comments.addComment(.init(target: .diary(inBook.id), body: "nice"))
            _ = try await bob.sdk.comments.addComment(.init(target: .post(other.id), body: "elsewhere"))
            _ = try await bob.sdk.posts.like(post.id)
            let onPost = try await bob.sdk.comments.addComment(.init(target: .post(post.id), body: "on the watched post"))

            try await bookStream.waitFor(.inserted, of: onEntry.id.rawValue)
            try await postStream.waitFor(.inserted, of: onPost.id.rawValue)
            try await notifications.wait(for: "a notification") { $0.contains { $0.change?.entity == .notification } }
            // Writing in a book may also update the book (its turn passes): only the entry and the comment besides it.
            try expectEqual(
                bookStream.changes.filter { $0.entity != .book }.map { [$0.entity.rawValue, $0.id.uuidString] },
                [[DiaryChange.Entity.diary.rawValue, inBook.id.rawValue.uuidString], [DiaryChange.Entity.comment.rawValue, onEntry.id.rawValue.uuidString]],
                "the book's screen gets its entry and the comment on it")
            try expect(
                bookStream.changes.allSatisfy { $0.entity != .book || $0.id == book.id.rawValue }, "\(bookStream.changes)")
            try expectEqual(
                postStream.changes.filter { $0.entity == .comment }.map(\.id), [onPost.id.rawValue],
                "the post's screen gets its comment and no other")
            try expect(
                postStream.changes.allSatisfy { $0.entity == .comment || ($0.entity == .post && $0.id == post.id.rawValue) },
                "only the watched post: \(postStream.changes)")
            let liked = postStream.changes.contains { change in
                if case .post(let value)? = change.value { value.likeCount == 1 } else { false }
            }
            try expect(liked, "the like arrives as the post, with its count: \(postStream.changes)")
            try expect(notifications.changes.allSatisfy { $0.entity == .notification }, "\(notifications.changes)")
        },
        ConformanceCheck("changes", "whatTheViewerMayNotSeeNeverArrivesAndAnonymousStaysAnonymous") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            try await alice.sdk.social.block(carol.id)
            let stream = ChangeRecorder(alice.sdk.changes.changes())
            _ = try await stream.first()

            let blocked = try await carol.sdk.posts.publish(.init(title: "Blocked", body: "never seen by alice"))
            _ = try await carol.sdk.diaries.write(.init(body: "shared, by a blocked user", visibility: .shared))
            _ = try await bob.sdk.diaries.write(.init(body: "private"))
            let anonymous = try await bob.sdk.posts.publish(.init(title: "Anon", body: "who?", isAnonymous: true))
            let comment = try await bob.sdk.comments.addComment(
                .init(target: .post(anonymous.id), body: "still me", isAnonymous: true))
            let marker = try await bob.sdk.posts.publish(.init(title: "Marker", body: "last"))
            try await stream.waitFor(.inserted, of: marker.id.rawValue)

            let changes = stream.changes
            try expect(!changes.contains { $0.id == blocked.id.rawValue }, "a blocked user's post never arrives: \(changes)")
            try expect(!changes.contains { $0.entity == .diary }, "no entry alice may not see: \(changes)")
            guard case .post(let post)? = changes.first(where: { $0.id == anonymous.id.rawValue })?.value else {
                throw ConformanceFailure.expected("the anonymous post as a value", got: ChangeRecorder.describe(stream.events))
            }
            try expect(post.author == nil && post.isAnonymous && post.source == .original, "the post stays anonymous: \(post)")
            let commentChange = try expectSome(changes.first { $0.id == comment.id.rawValue }, "the anonymous comment's change")
            guard case .comment(let value)? = commentChange.value else {
                throw ConformanceFailure.expected("the anonymous comment as a value", got: "\(commentChange)")
            }
            try expect(value.author == nil && value.isAnonymous && !value.isMine, "the comment stays anonymous: \(value)")
        },
    ]
}

extension ConformanceFailure {
    static func expected(_ what: String, got: String, file: StaticString = #fileID, line: UInt = #line) -> ConformanceFailure {
        ConformanceFailure(message: "expected \(what); got \(got)", file: "\(file)", line: line)
    }
}
