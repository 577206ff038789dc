import DiarySDK
import Foundation

extension ConformanceSuite {
    enum Outcome: Equatable, CustomStringConvertible {
        case allowed
        case denied(DiaryError.Code)

        var description: String {
            switch self {
            case .allowed: "allowed"
            case .denied(let code): "\(code)"
            }
        }
    }

    static func outcome(_ body: () async throws -> Void) async throws -> Outcome {
        do {
            try await body()
            return .allowed
        } catch let error as DiaryError {
            return .denied(error.code)
        }
    }

    /// The viewers of the matrix: the owner, a member of the owner's book, another user, a user the owner
    /// blocked, and a signed-out device.
    struct Viewers {
        let owner: ConformanceUser
        let member: ConformanceUser
        let other: ConformanceUser
        let blocked: ConformanceUser
        let signedOut: DiaryRepositories
        let book: DiaryBook

        static func make(_ context: ConformanceContext) async throws -> Viewers {
            let owner = try await context.user("owner")
            let member = try await context.user("member")
            let other = try await context.user("other")
            let blocked = try await context.user("blocked")
            let book = try await makeBook(owner, members: [member])
            try await owner.sdk.social.block(blocked.id)
            return Viewers(owner: owner, member: member, other: other, blocked: blocked, signedOut: try await context.device(), book: book)
        }

        var all: [(String, DiaryRepositories)] {
            [("owner", owner.sdk), ("member", member.sdk), ("other", other.sdk), ("blocked", blocked.sdk), ("signedOut", signedOut)]
        }
    }

    static func checkMatrix(
        _ name: String, _ viewers: Viewers, expected: [Outcome], _ action: (DiaryRepositories) async throws -> Void
    ) async throws {
        for ((role, sdk), want) in zip(viewers.all, expected) {
            let got = try await outcome { try await action(sdk) }
            try expect(got == want, "\(name) as \(role): expected \(want), got \(got)")
        }
    }

    static let authorizationChecks: [ConformanceCheck] = [
        ConformanceCheck("authorization", "readingEntriesFollowsTheVisibilityMatrix") { context in
            let v = try await Viewers.make(context)
            let privateEntry = try await v.owner.sdk.diaries.write(.init(body: "private"))
            let bookEntry = try await v.owner.sdk.diaries.write(.init(body: "book", bookID: v.book.id))
            let shared = try await v.owner.sdk.diaries.write(.init(body: "shared", visibility: .shared))
            let hidden = try await v.owner.sdk.diaries.write(.init(body: "hidden", visibility: .shared))
            _ = try await v.owner.sdk.diaries.setHidden(hidden.id, true)
            let no = Outcome.denied(.notFound)
            let out = Outcome.denied(.unauthenticated)
            try await checkMatrix("private entry", v, expected: [.allowed, no, no, no, out]) { _ = try await $0.diaries.entry(privateEntry.id) }
            try await checkMatrix("book entry", v, expected: [.allowed, .allowed, no, no, out]) { _ = try await $0.diaries.entry(bookEntry.id) }
            try await checkMatrix("shared entry", v, expected: [.allowed, .allowed, .allowed, no, out]) { _ = try await $0.diaries.entry(shared.id) }
            try await checkMatrix("hidden entry", v, expected: [.allowed, no, no, no, out]) { _ = try await $0.diaries.entry(hidden.id) }
            try await checkMatrix("comments on book entry", v, expected: [.allowed, .allowed, no, no, out]) {
                _ = try await $0.comments.comments(on: .diary(bookEntry.id), page: .first())
            }
            try await checkMatrix("book entries list", v, expected: [.allowed, .allowed, no, no, out]) {
                _ = try await $0.diaries.entries(.init(bookID: v.book.id), page: .first())
            }
        },
        ConformanceCheck("authorization", "changingEntriesIsForTheAuthorOnly") { context in
            let v = try await Viewers.make(context)
            let shared = try await v.owner.sdk.diaries.write(.init(body: "shared", visibility: .shared))
            let bookEntry = try await v.owner.sdk.diaries.write(.init(body: "book", bookID: v.book.id))
            let no = Outcome.denied(.notFound)
            let forbidden = Outcome.denied(.forbidden)
            let out = Outcome.denied(.unauthenticated)
            try await checkMatrix("edit shared entry", v, expected: [.allowed, forbidden, forbidden, no, out]) {
                _ = try await $0.diaries.edit(shared.id, .init(body: "edited"))
            }
            // Non-authors first: once the owner deletes it, only a trace is left.
            for (role, sdk, want) in [("member", v.member.sdk, forbidden), ("other", v.other.sdk, no), ("blocked", v.blocked.sdk, no), ("signedOut", v.signedOut, out)] {
                let got = try await outcome { try await sdk.diaries.delete(bookEntry.id) }
                try expect(got == want, "delete book entry as \(role): expected \(want), got \(got)")
            }
            try await v.owner.sdk.diaries.delete(bookEntry.id)
        },
        ConformanceCheck("authorization", "postsAndCommentsFollowTheBlockAndAuthorRules") { context in
            let v = try await Viewers.make(context)
            let post = try await v.owner.sdk.posts.publish(.init(title: "Owner's post", body: "B"))
            let comment = try await v.owner.sdk.comments.addComment(.init(target: .post(post.id), body: "c"))
            let no = Outcome.denied(.notFound)
            let forbidden = Outcome.denied(.forbidden)
            let out = Outcome.denied(.unauthenticated)
            try await checkMatrix("read post", v, expected: [.allowed, .allowed, .allowed, no, out]) { _ = try await $0.posts.post(post.id) }
            try await checkMatrix("comment on post", v, expected: [.allowed, .allowed, .allowed, no, out]) {
                _ = try await $0.comments.addComment(.init(target: .post(post.id), body: "hello"))
            }
            try await checkMatrix("edit post", v, expected: [.allowed, forbidden, forbidden, no, out]) {
                _ = try await $0.posts.edit(post.id, .init(body: "B2"))
            }
            try await checkMatrix("edit owner's comment", v, expected: [.allowed, forbidden, forbidden, no, out]) {
                _ = try await $0.comments.editComment(comment.id, body: "changed", mood: nil)
            }
            try await checkMatrix("like post", v, expected: [.allowed, .allowed, .allowed, no, out]) { _ = try await $0.posts.like(post.id) }
            try await checkMatrix("owner's profile", v, expected: [.allowed, .allowed, .allowed, no, out]) { _ = try await $0.users.user(v.owner.id) }
        },
        ConformanceCheck("authorization", "everyRepositoryRefusesASignedOutDevice") { context in
            let sdk = try await context.device()
            let someone = User.ID(UUID())
            let calls: [(String, () async throws -> Void)] = [
                ("users.user", { _ = try await sdk.users.user(someone) }),
                ("users.updateProfile", { _ = try await sdk.users.updateProfile(.init(bio: "x")) }),
                ("attachments.upload", { _ = try await sdk.attachments.upload(.init(data: tinyPNG, contentType: "image/png")) }),
                ("diaries.write", { _ = try await sdk.diaries.write(.init(body: "x")) }),
                ("diaries.calendar", { _ = try await sdk.diaries.calendar(month("2026-03"), of: nil) }),
                ("diaries.streak", { _ = try await sdk.diaries.streak(of: nil) }),
                ("books.createBook", { _ = try await sdk.books.createBook(.init(title: "x")) }),
                ("books.join", { _ = try await sdk.books.join(inviteCode: "ABCDEFGH") }),
                ("posts.publish", { _ = try await sdk.posts.publish(.init(title: "x", body: "y")) }),
                ("posts.feed", { _ = try await sdk.posts.feed(page: .first()) }),
                ("posts.search", { _ = try await sdk.posts.search(.init(text: "x"), page: .first()) }),
                ("comments.comments", { _ = try await sdk.comments.comments(on: .post(Post.ID(UUID())), page: .first()) }),
                ("social.follow", { try await sdk.social.follow(someone) }),
                ("social.blockedUsers", { _ = try await sdk.social.blockedUsers(page: .first()) }),
                ("notifications.notifications", { _ = try await sdk.notifications.notifications(page: .first()) }),
                ("blogs.blogs", { _ = try await sdk.blogs.blogs(of: nil) }),
                ("accounts.withdraw", { try await sdk.accounts.withdraw() }),
                ("accounts.registerDeviceToken", { try await sdk.accounts.registerDeviceToken(.init(token: "t", platform: .apns)) }),
            ]
            for (name, call) in calls {
                let got = try await outcome(call)
                try expect(got == .denied(.unauthenticated), "\(name) signed out: expected unauthenticated, got \(got)")
            }
        },
    ]
}
