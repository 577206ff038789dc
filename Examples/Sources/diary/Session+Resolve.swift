import DiarySDK

/// Turning what was typed (an id prefix, a nickname, `me`) into ids. A whole UUID is used as given; a prefix is
/// looked up among what the signed-in user can reach, and must match exactly one of it (as `git` takes a commit).
extension Session {
    /// One thing an id prefix may mean: its id and a few words that tell it apart in an "ambiguous" error.
    struct Candidate<Entity> {
        let id: EntityID<Entity>
        let label: String
    }

    /// Resolves a prefix among candidates.
    /// - Throws: `.notFound` when nothing matches; `.invalidInput` naming every match when more than one does.
    func resolve<Entity>(
        _ prefix: IDPrefix, _ what: String, among candidates: () async throws -> [Candidate<Entity>]
    ) async throws -> EntityID<Entity> {
        if let id = prefix.fullID(as: Entity.self) { return id }
        var seen = Set<EntityID<Entity>>()
        let matches = try await candidates().filter { prefix.matches($0.id) && seen.insert($0.id).inserted }
        switch matches.count {
        case 1: return matches[0].id
        case 0: throw DiaryError(.notFound, "no \(what) has an id starting with '\(prefix)'")
        default:
            let listed = matches.prefix(10).map { "\(shortID($0.id)) \($0.label)" }.joined(separator: ", ")
            throw DiaryError.invalid(
                "id", .invalidFormat,
                "'\(prefix)' is ambiguous: \(matches.count) \(what) ids start with it (\(listed)\(matches.count > 10 ? ", …" : "")); type more of it")
        }
    }

    /// An entry of yours, or of a book you are in.
    func entryID(_ prefix: IDPrefix) async throws -> Diary.ID {
        let sdk = self.sdk
        return try await resolve(prefix, "entry") {
            var entries = try await allItems { try await sdk.diaries.entries(DiaryQuery(includeHidden: true), page: $0) }
            for book in try await allItems({ try await sdk.books.books(page: $0) }) {
                entries += try await allItems { try await sdk.diaries.entries(DiaryQuery(bookID: book.id), page: $0) }
            }
            return entries.map { Candidate(id: $0.id, label: "(\($0.day) “\(Output.preview($0.title, 20))”)") }
        }
    }

    /// A post in your feed (its newest 1,000), of yours or one you liked.
    func postID(_ prefix: IDPrefix) async throws -> Post.ID {
        let sdk = self.sdk
        return try await resolve(prefix, "post") {
            var posts: [Post] = []
            for try await page in PageSequence(first: .first(size: 100), fetch: { try await sdk.posts.feed(page: $0) }) {
                posts += page.items
                if posts.count >= 1000 { break }
            }
            posts += try await allItems { try await sdk.posts.posts(by: nil, page: $0) }
            posts += try await allItems { try await sdk.posts.likedPosts(by: nil, page: $0) }
            return posts.map { Candidate(id: $0.id, label: "(“\(Output.preview($0.title, 20))”)") }
        }
    }

    /// One of your books.
    func bookID(_ prefix: IDPrefix) async throws -> DiaryBook.ID {
        let sdk = self.sdk
        return try await resolve(prefix, "book") {
            try await allItems { try await sdk.books.books(page: $0) }.map { Candidate(id: $0.id, label: "(“\($0.title)”)") }
        }
    }

    /// One of your blogs.
    func blogID(_ prefix: IDPrefix) async throws -> Blog.ID {
        try await resolve(prefix, "blog") {
            try await sdk.blogs.blogs(of: nil).map { Candidate(id: $0.id, label: "(“\($0.title)”)") }
        }
    }

    /// A comment or reply on a post or an entry.
    func commentID(_ prefix: IDPrefix, on target: CommentTarget?) async throws -> Comment.ID {
        let sdk = self.sdk
        return try await resolve(prefix, "comment") {
            guard let target else {
                throw DiaryError.invalid(
                    "comment", .invalidFormat, "give the comment's whole id, or say where it is with --post or --entry")
            }
            let threads = try await allItems { try await sdk.comments.comments(on: target, page: $0) }
            return threads.flatMap { [$0.comment] + $0.replies }.map {
                Candidate(id: $0.id, label: "(\($0.author?.nickname ?? "anonymous"): “\(Output.preview($0.body, 20))”)")
            }
        }
    }

    /// Resolves an optional user.
    func optionalUser(_ reference: UserReference?) async throws -> User.ID? {
        guard let reference else { return nil }
        return try await user(reference)
    }

    /// The one way every command finds a user: `me`, a whole id, a nickname (with or without `@`, any case), or an
    /// id prefix of someone you can reach (you follow, who follows you, you blocked, who shares a book with you, or
    /// who wrote one of the newest 100 posts in your feed).
    /// Users you blocked are found too, so `diary unblock bob` works for the `bob` that `diary blocked` lists.
    func user(_ reference: UserReference) async throws -> User.ID {
        let text = reference.text
        if text.lowercased() == "me" { return try await signedIn(self).id }
        let nickname = text.hasPrefix("@") ? String(text.dropFirst()) : text
        if let prefix = IDPrefix(nickname), let id = prefix.fullID(as: User.self) { return id }
        func named(_ users: [(id: User.ID, nickname: String)]) -> User.ID? {
            users.first { $0.nickname.lowercased() == nickname.lowercased() }?.id
        }
        let sdk = self.sdk
        let found: [(id: User.ID, nickname: String)] = try await sdk.users.searchUsers(nickname, page: .first(size: 100)).items.map { ($0.id, $0.nickname) }
        if let id = named(found) { return id }
        let me = try await signedIn(self)
        var known: [(id: User.ID, nickname: String)] = try await allItems { try await sdk.social.blockedUsers(page: $0) }.map { ($0.id, $0.nickname) }
        if let id = named(known) { return id }
        known += try await allItems { try await sdk.social.following(of: me.id, page: $0) }.map { ($0.id, $0.nickname) }
        known += try await allItems { try await sdk.social.followers(of: me.id, page: $0) }.map { ($0.id, $0.nickname) }
        for book in try await allItems({ try await sdk.books.books(page: $0) }) {
            known += try await sdk.books.members(of: book.id).map { ($0.user.id, $0.user.nickname) }
        }
        for post in try await sdk.posts.feed(page: .first(size: 100)).items {
            if let author = post.author { known.append((author.id, author.nickname)) }
        }
        known += found + [(me.id, me.nickname)]
        if let id = named(known) { return id }
        guard let prefix = IDPrefix(nickname) else { throw DiaryError(.notFound, "no user is called '\(nickname)'") }
        do {
            return try await resolve(prefix, "user") { known.map { Candidate(id: $0.0, label: "(\($0.1))") } }
        } catch let error as DiaryError where error.code == .notFound {
            throw DiaryError(.notFound, "no user is called '\(nickname)', and no user you know has an id starting with it")
        }
    }
}
