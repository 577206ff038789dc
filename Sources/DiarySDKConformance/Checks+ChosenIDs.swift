import DiarySDK
import Foundation

/// Creates with ids their client chose (what an offline client needs): the id is kept, and an id is used once over a
/// store's life, whoever used it and even after its row was deleted.
extension ConformanceSuite {
    static let chosenIDChecks: [ConformanceCheck] = [
        ConformanceCheck("chosenIDs", "aCreateKeepsTheIDItsClientChose") { context in
            let alice = try await context.user("alice")
            let entryID = Diary.ID(UUID())
            let entry = try await alice.sdk.diaries.write(.init(id: entryID, body: "written on the subway"))
            try expectEqual(entry.id, entryID)
            try expectEqual(try await alice.sdk.diaries.entry(entryID).body, "written on the subway")

            let postID = Post.ID(UUID())
            let post = try await alice.sdk.posts.publish(.init(id: postID, title: "Offline", body: "kept its id"))
            try expectEqual(post.id, postID)
            try expectEqual(try await alice.sdk.posts.post(postID).title, "Offline")

            let commentID = Comment.ID(UUID())
            let comment = try await alice.sdk.comments.addComment(.init(id: commentID, target: .post(postID), body: "first"))
            try expectEqual(comment.id, commentID)
            let replyID = Comment.ID(UUID())
            let reply = try await alice.sdk.comments.addComment(
                .init(id: replyID, target: .post(postID), parentID: commentID, body: "a reply to it"))
            try expectEqual(reply.id, replyID)
            let threads = try await alice.sdk.comments.comments(on: .post(postID), page: .first())
            try expectEqual(threads.items.map(\.comment.id), [commentID])
            try expectEqual(threads.items.first?.replies.map(\.id), [replyID])

            // Without an id the store picks one, as before.
            let picked = try await alice.sdk.diaries.write(.init(body: "no id chosen"))
            try expect(picked.id != entryID, "a new id")
        },
        ConformanceCheck("chosenIDs", "anIDInUseIsAConflictWhoeverOwnsIt") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let id = UUID()
            _ = try await alice.sdk.diaries.write(.init(id: Diary.ID(id), body: "a private thought"))
            // Alice again (a create retried after it landed), with other text.
            let again = try await expectError(.conflict, field: "id") {
                try await alice.sdk.diaries.write(.init(id: Diary.ID(id), body: "something else"))
            }
            try expectEqual(again.reason, .alreadyUsed)
            // Bob, for another kind of row: the id is taken across entries, posts and comments, and the answer
            // says nothing of what holds it.
            let taken = try await expectError(.conflict, field: "id") {
                try await bob.sdk.posts.publish(.init(id: Post.ID(id), title: "Mine", body: "my post"))
            }
            try expectEqual(taken.reason, .alreadyUsed)
            // The same answer whoever asks and whatever holds the id: it says nothing of the entry or its author.
            try expectEqual(taken.message, again.message)
            let post = try await bob.sdk.posts.publish(.init(title: "Public", body: "a post"))
            try await expectError(.conflict, field: "id") {
                try await bob.sdk.comments.addComment(.init(id: Comment.ID(post.id.rawValue), target: .post(post.id), body: "x"))
            }
            // Nothing was written by the refused creates.
            try expectEqual(try await alice.sdk.diaries.entry(Diary.ID(id)).body, "a private thought")
            try expectEqual(try await bob.sdk.posts.posts(by: bob.id, page: .first()).items.map(\.id), [post.id])
        },
        ConformanceCheck("chosenIDs", "aDeletedRowsIDIsNeverTakenAgain") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let postID = Post.ID(UUID())
            let commentID = Comment.ID(UUID())
            let replyID = Comment.ID(UUID())
            _ = try await alice.sdk.posts.publish(.init(id: postID, title: "Soon gone", body: "deleted below"))
            _ = try await bob.sdk.comments.addComment(.init(id: commentID, target: .post(postID), body: "a comment"))
            _ = try await alice.sdk.comments.addComment(
                .init(id: replyID, target: .post(postID), parentID: commentID, body: "a reply"))
            try await alice.sdk.posts.delete(postID)
            // The post's id, and those of the comments the deletion took with it, stay used: a create retried after
            // the delete must not bring the post back, and no one may take an id a report or notification names.
            let gone = try await expectError(.conflict, field: "id") {
                try await alice.sdk.posts.publish(.init(id: postID, title: "Soon gone", body: "deleted below"))
            }
            try expectEqual(gone.reason, .alreadyUsed)
            try await expectError(.notFound) { try await alice.sdk.posts.post(postID) }
            let other = try await alice.sdk.posts.publish(.init(title: "Another", body: "post"))
            // The answer does not tell a deleted row from a live one (a blocked user must not learn which).
            let live = try await expectError(.conflict, field: "id") {
                try await bob.sdk.posts.publish(.init(id: other.id, title: "Mine", body: "taken"))
            }
            try expectEqual(
                gone.message.replacingOccurrences(of: postID.description, with: "<id>"),
                live.message.replacingOccurrences(of: other.id.description, with: "<id>"))
            for id in [commentID, replyID] {
                try await expectError(.conflict, field: "id") {
                    try await bob.sdk.comments.addComment(.init(id: id, target: .post(other.id), body: "again"))
                }
            }
            // An entry deleted on its own, and one deleted with the account that wrote it.
            let entryID = Diary.ID(UUID())
            _ = try await bob.sdk.diaries.write(.init(id: entryID, body: "to delete"))
            try await bob.sdk.diaries.delete(entryID)
            try await expectError(.conflict, field: "id") {
                try await bob.sdk.diaries.write(.init(id: entryID, body: "to delete"))
            }
            let carol = try await context.user("carol")
            let carolsEntry = Diary.ID(UUID())
            _ = try await carol.sdk.diaries.write(.init(id: carolsEntry, body: "carol's"))
            try await carol.sdk.accounts.withdraw()
            try await expectError(.conflict, field: "id") {
                try await bob.sdk.diaries.write(.init(id: carolsEntry, body: "bob's now?"))
            }
        },
        ConformanceCheck("chosenIDs", "anIDThatIsNotARandomUUIDIsRefused") { context in
            let alice = try await context.user("alice")
            // The nil UUID, a version 1 UUID (it carries a device address and a time), a version 7 UUID (a time), and
            // a version 4 UUID with the wrong variant bits.
            for text in [
                "00000000-0000-0000-0000-000000000000", "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
                "01932c07-209c-7a3b-8c1e-3f2a1b4c5d6e", "8a1c0f3e-5b2d-4c6e-0f1a-2b3c4d5e6f70",
            ] {
                let id = try expectSome(UUID(uuidString: text), text)
                let error = try await expectError(.invalidInput, field: "id") {
                    try await alice.sdk.diaries.write(.init(id: Diary.ID(id), body: "not random"))
                }
                try expectEqual(error.reason, .invalidFormat)
                try await expectError(.invalidInput, field: "id") {
                    try await alice.sdk.posts.publish(.init(id: Post.ID(id), title: "Not random", body: "id", isAnonymous: true))
                }
            }
            try expectEqual(try await alice.sdk.diaries.entries(.init(), page: .first()).items.count, 0)
        },
    ]
}
