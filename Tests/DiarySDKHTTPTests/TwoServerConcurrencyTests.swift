import DiarySDK
import DiarySDKHTTP
import Foundation
import Testing

/// The invariants a shared database must keep when the writes that race come through two server processes:
/// each test starts two servers on one fresh schema and splits concurrent requests between them. The tests run one
/// at a time, so that the races are between the requests of one test and the pools stay small.
@Suite("Two reference servers on one PostgreSQL schema, under concurrent writes", .serialized,
       .enabled(if: PostgresReferenceServer.shouldRun, "needs DIARY_TEST_DATABASE_URL (scripts/postgres.sh start)"))
struct TwoServerConcurrencyTests {
    @Test func fiftyUsersLikingOnePostThroughBothServersCountFiftyAndEachSeesTheirOwnLike() async throws {
        try await TwoServers.with { pair in
            let author = try await pair.user("author", on: 0)
            let post = try await author.sdk.posts.publish(PostDraft(title: "Popular", body: "like me"))
            let likers = try await signUp(50, "liker", on: pair)

            let liked = try await withThrowingTaskGroup(of: Post.self) { group in
                for liker in likers { group.addTask { try await liker.sdk.posts.like(post.id) } }
                return try await group.reduce(into: [Post]()) { $0.append($1) }
            }
            #expect(liked.count == 50)
            #expect(liked.allSatisfy { $0.isLiked })
            let authorElsewhere = try await pair.signIn(author, on: 1)
            for sdk in [author.sdk, authorElsewhere] {
                let seen = try await sdk.posts.post(post.id)
                #expect(seen.likeCount == 50)
                #expect(seen.isLiked == false)
            }

            // Half take their like back while the other half like again (a no-op), each through the other server.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, liker) in likers.enumerated() {
                    let other = try await pair.signIn(liker, on: number + 1)
                    group.addTask {
                        if number.isMultiple(of: 2) {
                            _ = try await other.posts.unlike(post.id)
                        } else {
                            _ = try await liker.sdk.posts.like(post.id)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for (number, liker) in likers.enumerated() {
                let seen = try await liker.sdk.posts.post(post.id)
                #expect(seen.isLiked == !number.isMultiple(of: 2), "liker\(number)")
                #expect(seen.likeCount == 25)
                let likedPosts = try await liker.sdk.posts.likedPosts(by: nil, page: .first()).items.map(\.id)
                #expect(likedPosts == (number.isMultiple(of: 2) ? [] : [post.id]), "liker\(number)")
            }
        }
    }

    @Test func twoSignUpsWithOneNicknameOnTwoServersLetExactlyOneThrough() async throws {
        try await TwoServers.with { pair in
            for round in 0..<10 {
                let outcomes = await race(2) { side in
                    try await pair.device(on: side).accounts.signUp(
                        SignUpRequest(email: "nick\(round)-\(side)@example.com", password: "correct horse battery", nickname: "Racer\(round)"))
                }
                #expect(outcomes.successes.count == 1, "round \(round): \(outcomes.failures)")
                #expect(outcomes.failures.map(\.code) == [.conflict], "round \(round): \(outcomes.failures)")
                #expect(outcomes.failures.map(\.field) == ["nickname"], "round \(round)")
            }
            // Exactly the winners exist: each nickname is taken once, and every loser's email is still free.
            let probe = pair.device(on: 1)
            for round in 0..<10 {
                #expect(try await probe.accounts.isNicknameAvailable("racer\(round)") == false)
                let free = try await [0, 1].asyncMap { try await probe.accounts.isEmailAvailable("nick\(round)-\($0)@example.com") }
                #expect(free.filter { $0 }.count == 1, "round \(round): \(free)")
            }
        }
    }

    @Test func twoSignUpsWithOneEmailOnTwoServersLetExactlyOneThrough() async throws {
        try await TwoServers.with { pair in
            for round in 0..<10 {
                let outcomes = await race(2) { side in
                    try await pair.device(on: side).accounts.signUp(
                        SignUpRequest(email: "same\(round)@example.com", password: "correct horse battery", nickname: "mail\(round)x\(side)"))
                }
                #expect(outcomes.successes.count == 1, "round \(round): \(outcomes.failures)")
                #expect(outcomes.failures.map(\.code) == [.conflict], "round \(round): \(outcomes.failures)")
                #expect(outcomes.failures.map(\.field) == ["email"], "round \(round)")
                // The winner signs in on either server with its own password; the loser's nickname stayed free.
                let winner = try #require(outcomes.successes.first)
                let signedIn = try await pair.device(on: round + 1).accounts.signIn(
                    .password(email: "same\(round)@example.com", password: "correct horse battery"))
                #expect(signedIn.id == winner.id)
                let loserNickname = winner.nickname == "mail\(round)x0" ? "mail\(round)x1" : "mail\(round)x0"
                #expect(try await pair.device(on: round).accounts.isNicknameAvailable(loserNickname))
            }
        }
    }

    @Test func turnsPassInMemberOrderWhenEveryMemberWritesAtOnceThroughBothServers() async throws {
        try await TwoServers.with { pair in
            let owner = try await pair.user("owner", on: 0)
            let others = [try await pair.user("second", on: 1), try await pair.user("third", on: 0)]
            let book = try await owner.sdk.books.createBook(BookDraft(title: "Duck book"))
            let code = try await owner.sdk.books.inviteCode(for: book.id)
            for member in others { _ = try await member.sdk.books.join(inviteCode: code) }
            let members = [owner] + others
            #expect(try await owner.sdk.books.members(of: book.id).map(\.user.id) == members.map(\.id))

            // Each member writes six entries at once, from a device on each server (three each).
            let perMember = 6
            var signedInElsewhere: [(ServerUser, DiaryRepositories)] = []
            for (number, member) in members.enumerated() {
                signedInElsewhere.append((member, try await pair.signIn(member, on: number + 1)))
            }
            let writers = signedInElsewhere
            let written = try await withThrowingTaskGroup(of: Diary.self) { group in
                for (member, elsewhere) in writers {
                    for entry in 0..<perMember {
                        let sdk = entry.isMultiple(of: 2) ? member.sdk : elsewhere
                        group.addTask {
                            try await sdk.diaries.write(DiaryDraft(body: "\(member.user.nickname) \(entry)", bookID: book.id))
                        }
                    }
                }
                return try await group.reduce(into: [Diary]()) { $0.append($1) }
            }
            #expect(written.count == members.count * perMember)

            // The turn moved once per entry written by the member whose turn it was, always to the next member in
            // joining order, and each move told that member once: with K moves in all, member j (0-based) was told
            // once for every k in 1…K with k % n == j, and the turn now sits with member K % n.
            var told: [Int] = []
            for member in members {
                let notes = try await allItems { try await member.sdk.notifications.notifications(page: $0) }
                told.append(notes.filter { $0.kind == .yourTurn && $0.bookID == book.id }.count)
                let entries = notes.filter { $0.kind == .newEntryInBook && $0.bookID == book.id }.count
                #expect(entries == (members.count - 1) * perMember, "\(member.user.nickname) hears of every other member's entry")
            }
            let moves = told.reduce(0, +)
            let expected = (0..<members.count).map { j in (1...max(moves, 1)).filter { $0 % members.count == j && $0 <= moves }.count }
            #expect(moves >= 1, "the owner wrote with the turn at least once")
            #expect(told == expected, "yourTurn per member \(told) after \(moves) moves")
            for index in 0..<2 {
                let seen = try await (index == 0 ? owner.sdk : writers[0].1).books.book(book.id)
                #expect(seen.currentTurn == members[moves % members.count].id, "server \(index)")
            }
            let entries = try await allItems { try await owner.sdk.diaries.entries(DiaryQuery(bookID: book.id), page: $0) }
            #expect(Set(entries.map(\.id)) == Set(written.map(\.id)))
        }
    }

    @Test func oneInviteCodeRedeemedAtOnceThroughBothServersAddsEachUserOnce() async throws {
        try await TwoServers.with { pair in
            let owner = try await pair.user("owner", on: 0)
            let book = try await owner.sdk.books.createBook(BookDraft(title: "Open book"))
            let code = try await owner.sdk.books.inviteCode(for: book.id)
            let joiners = try await signUp(12, "joiner", on: pair)
            var devices: [(User.ID, DiaryRepositories)] = []
            for (number, joiner) in joiners.enumerated() {
                devices.append((joiner.id, joiner.sdk))
                devices.append((joiner.id, try await pair.signIn(joiner, on: number + 1)))
            }

            // Every joiner redeems the code twice at once, once on each server.
            let outcomes = try await withThrowingTaskGroup(of: (User.ID, DiaryError?).self) { group in
                for (id, sdk) in devices {
                    group.addTask {
                        do {
                            let joined = try await sdk.books.join(inviteCode: code)
                            return (id, joined.id == book.id ? nil : DiaryError(.server, "joined another book"))
                        } catch {
                            return (id, DiaryError.wrapping(error))
                        }
                    }
                }
                return try await group.reduce(into: [(User.ID, DiaryError?)]()) { $0.append($1) }
            }
            for joiner in joiners {
                let mine = outcomes.filter { $0.0 == joiner.id }.map(\.1)
                #expect(mine.filter { $0 == nil }.count == 1, "\(joiner.user.nickname): \(mine)")
                #expect(mine.compactMap { $0?.code } == [.conflict], "\(joiner.user.nickname): \(mine)")
            }
            let seen = try await joiners[1].sdk.books.members(of: book.id)
            #expect(seen.count == 13)
            #expect(Set(seen.map(\.user.id)) == Set([owner.id] + joiners.map(\.id)))
            let joinedAt = seen.map(\.joinedAt)
            #expect(zip(joinedAt, joinedAt.dropFirst()).allSatisfy { $0 < $1 }, "strict joining order: \(joinedAt)")
            let notes = try await allItems { try await owner.sdk.notifications.notifications(page: $0) }
            #expect(notes.filter { $0.kind == .newMember }.count == 12)
        }
    }

    @Test func commentCountsMatchTheCommentsAfterConcurrentCommentsAndDeletesOnBothServers() async throws {
        try await TwoServers.with { pair in
            let author = try await pair.user("author", on: 0)
            let post = try await author.sdk.posts.publish(PostDraft(title: "Talk", body: "about it"))
            let commenters = try await signUp(20, "commenter", on: pair)

            let first = try await withThrowingTaskGroup(of: (Int, DiarySDK.Comment).self) { group in
                for (number, commenter) in commenters.enumerated() {
                    for round in 0..<2 {
                        group.addTask { (number, try await commenter.sdk.comments.addComment(CommentDraft(target: .post(post.id), body: "round \(round)"))) }
                    }
                }
                return try await group.reduce(into: [(Int, DiarySDK.Comment)]()) { $0.append($1) }
            }
            let authorElsewhere = try await pair.signIn(author, on: 1)
            try await expectCommentCount(40, on: post.id, readers: [author.sdk, authorElsewhere])
            let notes = try await allItems { try await author.sdk.notifications.notifications(page: $0) }
            #expect(notes.filter { $0.kind == .commentOnPost && $0.postID == post.id }.count == 40)
            #expect(try await authorElsewhere.notifications.unreadCount() == 40)

            // Ten comments are deleted (each by its author) while ten more are written, at once, on both servers.
            let deleted = Array(first.prefix(10))
            let second = try await withThrowingTaskGroup(of: DiarySDK.Comment?.self) { group in
                for (number, comment) in deleted {
                    let owner = commenters[number]
                    group.addTask {
                        try await owner.sdk.comments.deleteComment(comment.id)
                        return nil
                    }
                }
                for commenter in commenters.prefix(10) {
                    group.addTask { try await commenter.sdk.comments.addComment(CommentDraft(target: .post(post.id), body: "again")) }
                }
                return try await group.reduce(into: [DiarySDK.Comment]()) { if let comment = $1 { $0.append(comment) } }
            }
            #expect(second.count == 10)
            let remaining = try await expectCommentCount(40, on: post.id, readers: [author.sdk, authorElsewhere])
            #expect(remaining == Set(first.map(\.1.id)).subtracting(deleted.map(\.1.id)).union(second.map(\.id)))
        }
    }

    // MARK: - Helpers

    /// Signs up `count` users named `<prefix><n>`, alternately on each server, a few at a time.
    func signUp(_ count: Int, _ prefix: String, on pair: TwoServers) async throws -> [ServerUser] {
        try await withThrowingTaskGroup(of: (Int, ServerUser).self) { group in
            for number in 0..<count {
                group.addTask { (number, try await pair.user("\(prefix)\(number)", on: number)) }
            }
            return try await group.reduce(into: [(Int, ServerUser)]()) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Runs `body` for sides `0..<count` at once and sorts the outcomes.
    func race<Value: Sendable>(
        _ count: Int, _ body: @escaping @Sendable (Int) async throws -> Value
    ) async -> (successes: [Value], failures: [DiaryError]) {
        let results = await withTaskGroup(of: Result<Value, DiaryError>.self) { group in
            for side in 0..<count {
                group.addTask {
                    do { return .success(try await body(side)) } catch { return .failure(DiaryError.wrapping(error)) }
                }
            }
            return await group.reduce(into: [Result<Value, DiaryError>]()) { $0.append($1) }
        }
        return (results.compactMap { try? $0.get() }, results.compactMap { if case .failure(let error) = $0 { error } else { nil } })
    }

    /// Checks the post's comment count on both servers against the comments listed, and returns their ids.
    @discardableResult
    func expectCommentCount(_ count: Int, on postID: Post.ID, readers: [DiaryRepositories]) async throws -> Set<DiarySDK.Comment.ID> {
        let threads = try await allItems { try await readers[0].comments.comments(on: .post(postID), page: $0) }
        let listed = threads.map(\.comment.id) + threads.flatMap { $0.replies.map(\.id) }
        #expect(listed.count == count)
        #expect(Set(listed).count == listed.count)
        for (index, reader) in readers.enumerated() {
            #expect(try await reader.posts.post(postID).commentCount == count, "server \(index)")
        }
        return Set(listed)
    }
}

extension Array {
    /// The values of `transform` for each element, one after the other.
    func asyncMap<Mapped>(_ transform: (Element) async throws -> Mapped) async rethrows -> [Mapped] {
        var mapped: [Mapped] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
