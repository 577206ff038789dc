import DiarySDK
import Foundation

extension ConformanceSuite {
    static let clientIDChecks: [ConformanceCheck] = [
        ConformanceCheck("ids", "anEntryCreatedWithItsOwnIDKeepsItAndARetryAnswersWithTheEntryAsItIsNow") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let id = Diary.ID(rawValue: UUID())
            let draft = DiaryDraft(body: "Written on the subway", visibility: .shared, id: id)
            let written = try await alice.sdk.diaries.write(draft)
            try expectEqual(written.id, id, "the client's id is kept")
            let edited = try await alice.sdk.diaries.edit(id, DiaryEdit(body: "Edited later"))
            // The create arrives again (the app was killed before it saw the answer): nothing new, nothing undone.
            let retried = try await alice.sdk.diaries.write(draft)
            try expectEqual(retried, edited, "a retried create answers with the entry as it is now")
            let all = try await collectAll { try await alice.sdk.diaries.entries(DiaryQuery(), page: $0) }
            try expectEqual(all.map(\.id), [id], "one entry")
            let error = try await expectError(.conflict, field: "id") {
                try await bob.sdk.diaries.write(DiaryDraft(body: "Mine?", id: id))
            }
            try expect(!error.message.contains("alice") && !error.message.contains("subway"), "names no one: \(error)")
            try expectEqual(try await alice.sdk.diaries.entry(id).body, "Edited later", "the entry is untouched")
        },
        ConformanceCheck("ids", "aPostAndACommentCreatedWithTheirOwnIDsKeepThemAndRetriesDoNotRepeat") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let postID = Post.ID(rawValue: UUID())
            let post = try await alice.sdk.posts.publish(PostDraft(title: "Offline", body: "post", id: postID))
            try expectEqual(post.id, postID)
            try expectEqual(try await alice.sdk.posts.publish(PostDraft(title: "Offline", body: "post", id: postID)).id, postID)
            try expectEqual(try await collectAll { try await alice.sdk.posts.posts(by: alice.id, page: $0) }.count, 1)
            try await expectError(.conflict, field: "id") {
                try await bob.sdk.posts.publish(PostDraft(title: "Taken", body: "id", id: postID))
            }

            let commentID = Comment.ID(rawValue: UUID())
            let draft = CommentDraft(target: .post(postID), body: "first!", id: commentID)
            let comment = try await bob.sdk.comments.addComment(draft)
            try expectEqual(comment.id, commentID)
            try expectEqual(try await bob.sdk.comments.addComment(draft).id, commentID)
            let threads = try await collectAll { try await alice.sdk.comments.comments(on: .post(postID), page: $0) }
            try expectEqual(threads.map(\.comment.id), [commentID], "one comment")
            try expectEqual(try await alice.sdk.posts.post(postID).commentCount, 1)
            try await expectError(.conflict, field: "id") {
                try await alice.sdk.comments.addComment(CommentDraft(target: .post(postID), body: "taken", id: commentID))
            }
            let other = try await bob.sdk.posts.publish(PostDraft(title: "Other", body: "post"))
            try await expectError(.conflict, field: "id") {
                try await bob.sdk.comments.addComment(CommentDraft(target: .post(other.id), body: "moved?", id: commentID))
            }
        },
    ]
}
