import DiarySDK
import Foundation

extension ConformanceSuite {
    /// A book owned by the first actor with the others joined by invite code, in order.
    static func makeBook(_ owner: ConformanceUser, members: [ConformanceUser]) async throws -> DiaryBook {
        let book = try await owner.sdk.books.createBook(.init(title: "Our book", coverColor: "#a0c4ff"))
        let code = try await owner.sdk.books.inviteCode(for: book.id)
        for member in members { _ = try await member.sdk.books.join(inviteCode: code.lowercased()) }
        return try await owner.sdk.books.book(book.id)
    }

    static let bookChecks: [ConformanceCheck] = [
        ConformanceCheck("books", "creatingABookMakesTheOwnerItsFirstMemberWithTheTurn") { context in
            let alice = try await context.user("alice")
            let book = try await alice.sdk.books.createBook(.init(title: "Duck book", coverColor: "#ffd166", stickers: [.init(name: "duck", x: 0.5, y: 0.5)]))
            try expectEqual(book.coverColor, "#FFD166")
            try expectEqual(book.currentTurn, alice.id)
            let members = try await alice.sdk.books.members(of: book.id)
            try expectEqual(members.map(\.user.id), [alice.id])
            try expectEqual(members.map(\.role), [.owner])
            try await expectError(.invalidInput, field: "coverColor") { try await alice.sdk.books.createBook(.init(title: "X", coverColor: "red")) }
            try await expectError(.invalidInput, field: "title") { try await alice.sdk.books.createBook(.init(title: " ")) }
        },
        ConformanceCheck("books", "joiningByInviteCodeAddsAMemberAndNotifiesTheOthers") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            try expectEqual(try await bob.sdk.books.members(of: book.id).map(\.user.id), [alice.id, bob.id])
            let notes = try await alice.sdk.notifications.notifications(page: .first()).items
            try expectEqual(notes.map(\.kind), [.newMember])
            try expectEqual(notes.first?.actor?.id, bob.id)
            try expectEqual(try await bob.sdk.books.books(page: .first()).items.map(\.id), [book.id])
        },
        ConformanceCheck("books", "unknownCodesAreNotFoundAndJoiningTwiceIsAConflict") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            try await expectError(.notFound) { try await bob.sdk.books.join(inviteCode: "NOPE2345") }
            let code = try await bob.sdk.books.inviteCode(for: book.id)
            try await expectError(.conflict) { try await bob.sdk.books.join(inviteCode: code) }
            try await expectError(.invalidInput, field: "inviteCode") { try await bob.sdk.books.join(inviteCode: "  ") }
        },
        ConformanceCheck("books", "rotatingTheInviteCodeRetiresTheOldOneAndIsForTheOwnerOnly") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let book = try await makeBook(alice, members: [bob])
            let old = try await alice.sdk.books.inviteCode(for: book.id)
            try await expectError(.forbidden) { try await bob.sdk.books.rotateInviteCode(for: book.id) }
            let new = try await alice.sdk.books.rotateInviteCode(for: book.id)
            try expect(new != old, "a new code")
            try await expectError(.notFound) { try await carol.sdk.books.join(inviteCode: old) }
            _ = try await carol.sdk.books.join(inviteCode: new)
        },
        ConformanceCheck("books", "bookEntriesAreVisibleToMembersOnly") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let eve = try await context.user("eve")
            let book = try await makeBook(alice, members: [bob])
            let entry = try await alice.sdk.diaries.write(.init(body: "For the book", bookID: book.id))
            try expectEqual(entry.visibility, .members)
            try expectEqual(try await bob.sdk.diaries.entry(entry.id).body, "For the book")
            try await expectError(.notFound) { try await eve.sdk.diaries.entry(entry.id) }
            try await expectError(.notFound) { try await eve.sdk.diaries.entries(.init(bookID: book.id), page: .first()) }
            try await expectError(.notFound) { try await eve.sdk.books.book(book.id) }
            try await expectError(.notFound) { try await eve.sdk.books.members(of: book.id) }
            try await expectError(.notFound) { try await eve.sdk.diaries.write(.init(body: "Intruder", bookID: book.id)) }
            try await expectError(.invalidInput, field: "visibility") {
                try await alice.sdk.diaries.write(.init(body: "x", visibility: .shared, bookID: book.id))
            }
        },
        ConformanceCheck("books", "writingYourTurnPassesItOnAndTellsTheNextWriter") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let book = try await makeBook(alice, members: [bob, carol])
            try await context.setNow(epoch.addingTimeInterval(10))
            _ = try await alice.sdk.diaries.write(.init(body: "My turn", bookID: book.id))
            try expectEqual(try await alice.sdk.books.book(book.id).currentTurn, bob.id)
            let bobsNotes = try await bob.sdk.notifications.notifications(page: .first()).items.map(\.kind)
            try expect(bobsNotes.contains(.yourTurn), "bob is told it is his turn: \(bobsNotes)")
            try expect(bobsNotes.contains(.newEntryInBook), "bob is told about the entry: \(bobsNotes)")
            _ = try await bob.sdk.diaries.write(.init(body: "Bob's turn", bookID: book.id))
            try expectEqual(try await alice.sdk.books.book(book.id).currentTurn, carol.id)
            _ = try await carol.sdk.diaries.write(.init(body: "Carol's turn", bookID: book.id))
            try expectEqual(try await alice.sdk.books.book(book.id).currentTurn, alice.id, "turns go round")
            let entries = try await carol.sdk.diaries.entries(.init(bookID: book.id), page: .first()).items
            try expectEqual(entries.count, 3)
        },
        ConformanceCheck("books", "nudgingNotifiesTheWriterWhoseTurnItIs") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            try await bob.sdk.books.nudge(book.id)
            let notes = try await alice.sdk.notifications.notifications(page: .first()).items
            try expect(notes.contains { $0.kind == .nudge && $0.actor?.id == bob.id && $0.bookID == book.id }, "alice is nudged")
            try await expectError(.conflict) { try await alice.sdk.books.nudge(book.id) }
        },
        ConformanceCheck("books", "deletedBookEntriesLeaveATraceMembersMayHide") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            let entry = try await alice.sdk.diaries.write(.init(title: "Oops", body: "Regret", bookID: book.id))
            try await alice.sdk.diaries.delete(entry.id)
            let trace = try await bob.sdk.diaries.entry(entry.id)
            try expect(trace.isDeletedTrace, "the trace is marked deleted")
            try expectEqual(trace.body, "", "the trace keeps no content")
            try expectEqual(trace.title, "")
            try expectEqual(try await bob.sdk.diaries.entries(.init(bookID: book.id), page: .first()).items.map(\.id), [entry.id])
            var settings = try await bob.sdk.accounts.currentUser()!.settings!
            settings.showsDeletedEntryTraces = false
            _ = try await bob.sdk.users.updateSettings(settings)
            try expectEqual(try await bob.sdk.diaries.entries(.init(bookID: book.id), page: .first()).items.count, 0)
            try await expectError(.notFound) { try await bob.sdk.diaries.entry(entry.id) }
            try await expectError(.notFound) { try await alice.sdk.diaries.edit(entry.id, .init(body: "Back")) }
        },
        ConformanceCheck("books", "onlyTheOwnerRemovesMembersAndRemovedMembersLoseAccess") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let book = try await makeBook(alice, members: [bob, carol])
            try await expectError(.forbidden) { try await bob.sdk.books.removeMember(carol.id, from: book.id) }
            try await expectError(.invalidInput, field: "userID") { try await alice.sdk.books.removeMember(alice.id, from: book.id) }
            try await alice.sdk.books.removeMember(bob.id, from: book.id)
            try await expectError(.notFound) { try await bob.sdk.books.book(book.id) }
            try await expectError(.notFound) { try await alice.sdk.books.removeMember(bob.id, from: book.id) }
            try expectEqual(try await carol.sdk.books.members(of: book.id).map(\.user.id), [alice.id, carol.id])
        },
        ConformanceCheck("books", "anOwnerWhoLeavesHandsTheBookOnAndTheLastMemberDeletesIt") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            try await alice.sdk.books.leave(book.id)
            let handed = try await bob.sdk.books.book(book.id)
            try expectEqual(handed.ownerID, bob.id)
            try expectEqual(handed.currentTurn, bob.id, "the leaver's turn passes on")
            try await expectError(.notFound) { try await alice.sdk.books.book(book.id) }
            try await bob.sdk.books.leave(book.id)
            try await expectError(.notFound) { try await bob.sdk.books.book(book.id) }
        },
        ConformanceCheck("books", "whenTheWriterWhoseTurnItIsLeavesOrIsRemovedTheNextWriterIsTold") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let carol = try await context.user("carol")
            let dave = try await context.user("dave")
            let book = try await makeBook(alice, members: [bob, carol, dave])
            _ = try await alice.sdk.diaries.write(.init(body: "My turn", bookID: book.id))
            try expectEqual(try await alice.sdk.books.book(book.id).currentTurn, bob.id)
            let turns = { (actor: ConformanceUser) in
                try await actor.sdk.notifications.notifications(page: .first()).items.filter { $0.kind == .yourTurn }
            }
            try expectEqual(try await turns(carol).count, 0)
            try await bob.sdk.books.leave(book.id)
            try expectEqual(try await alice.sdk.books.book(book.id).currentTurn, carol.id)
            let carolsTurns = try await turns(carol)
            try expectEqual(carolsTurns.map(\.bookID), [book.id], "carol is told it is her turn when bob leaves")
            try await alice.sdk.books.removeMember(carol.id, from: book.id)
            try expectEqual(try await alice.sdk.books.book(book.id).currentTurn, dave.id)
            try expectEqual(try await turns(dave).map(\.bookID), [book.id], "dave is told when carol is removed")
            try await alice.sdk.books.leave(book.id)
            try expectEqual(try await turns(dave).count, 1, "nobody's turn passed: dave is not told again")
        },
        ConformanceCheck("books", "booksListMostRecentlyUpdatedFirst") { context in
            let alice = try await context.user("alice")
            let first = try await alice.sdk.books.createBook(.init(title: "First"))
            try await context.setNow(epoch.addingTimeInterval(10))
            let second = try await alice.sdk.books.createBook(.init(title: "Second"))
            try expectEqual(try await alice.sdk.books.books(page: .first()).items.map(\.id), [second.id, first.id])
            try await context.setNow(epoch.addingTimeInterval(20))
            _ = try await alice.sdk.diaries.write(.init(body: "Bump", bookID: first.id))
            try expectEqual(try await alice.sdk.books.books(page: .first()).items.map(\.id), [first.id, second.id])
        },
        ConformanceCheck("books", "onlyTheOwnerDeletesABookAndItsEntriesGoWithIt") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let book = try await makeBook(alice, members: [bob])
            let entry = try await bob.sdk.diaries.write(.init(body: "Bob's", bookID: book.id))
            try await expectError(.forbidden) { try await bob.sdk.books.deleteBook(book.id) }
            try await alice.sdk.books.deleteBook(book.id)
            try await expectError(.notFound) { try await bob.sdk.diaries.entry(entry.id) }
            try expectEqual(try await bob.sdk.books.books(page: .first()).items.count, 0)
        },
    ]
}
