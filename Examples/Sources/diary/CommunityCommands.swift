import ArgumentParser
import DiarySDK
import Foundation

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "post", abstract: "Publish a community post.")
    @OptionGroup var options: GlobalOptions
    @Flag(help: "Post without showing your name.") var anonymous = false
    @Option(name: .customLong("tag"), help: "A tag (repeatable).") var tags: [String] = []
    @Option(help: "Share one of your entries instead of writing a post (its id).") var entry: String?
    @Argument(help: "The title, then the text.") var words: [String] = []

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let post: Post
            if let entry {
                post = try await session.sdk.posts.share(try parseID(entry, as: Diary.self, "entry"), isAnonymous: anonymous)
            } else {
                guard let title = words.first else { throw ValidationError("give a title and a text") }
                post = try await session.sdk.posts.publish(
                    .init(title: title, body: words.dropFirst().joined(separator: " "), tags: tags, isAnonymous: anonymous))
            }
            session.output.show(post) { print("Published post \(post.id).") }
        }
    }
}

struct Feed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The community feed, newest first.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "A page number (numbered paging).") var page: Int?
    @Option(help: "Continue after this cursor (from the previous page).") var cursor: String?
    @Option(help: "Posts per page.") var size = 10
    @Option(help: "Only this user's posts (nickname or id; 'me' for yours).") var user: String?

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let request: PageRequest =
                if let page { .number(page, size: size) } else if let cursor { .after(PageCursor(rawValue: cursor), size: size) } else {
                    .first(size: size)
                }
            let result: Page<Post>
            if let user {
                result = try await session.sdk.posts.posts(by: user == "me" ? nil : try await session.user(user), page: request)
            } else {
                result = try await session.sdk.posts.feed(page: request)
            }
            session.output.show(result) { printPosts(result) }
        }
    }
}

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Search posts by words and tags.")
    @OptionGroup var options: GlobalOptions
    @Option(name: .customLong("tag"), help: "A tag (repeatable).") var tags: [String] = []
    @Argument(help: "Words to find in titles, texts and tags.") var words: [String] = []

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let result = try await session.sdk.posts.search(.init(text: words.joined(separator: " "), tags: tags), page: .first(size: 50))
            session.output.show(result) { printPosts(result) }
        }
    }
}

struct Like: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Like a post.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The post's id.") var post: String

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let liked = try await session.sdk.posts.like(try parseID(post, as: Post.self, "post"))
            session.output.show(liked) { print("♥ \(liked.likeCount)") }
        }
    }
}

struct Unlike: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove your like.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The post's id.") var post: String

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let post = try await session.sdk.posts.unlike(try parseID(post, as: Post.self, "post"))
            session.output.show(post) { print("♡ \(post.likeCount)") }
        }
    }
}

struct Likes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Posts you (or someone) liked.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "Whose likes (nickname or id).") var user: String?

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let result = try await session.sdk.posts.likedPosts(by: try await session.optionalUser(user), page: .first(size: 50))
            session.output.show(result) { printPosts(result) }
        }
    }
}

struct CommentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "comment", abstract: "Comment on a post or an entry.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "A post's id.") var post: String?
    @Option(help: "An entry's id.") var entry: String?
    @Option(help: "Reply to this comment.") var replyTo: String?
    @Option(help: "A mood for a mood comment.") var mood: String?
    @Flag(help: "Comment without showing your name.") var anonymous = false
    @Argument(help: "The text.") var body: [String]

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let draft = CommentDraft(
                target: try target(post: post, entry: entry), parentID: try replyTo.map { try parseID($0, as: Comment.self, "comment") },
                body: body.joined(separator: " "), mood: mood.map(Mood.init(rawValue:)), isAnonymous: anonymous)
            let comment = try await session.sdk.comments.addComment(draft)
            session.output.show(comment) { print("Commented (\(comment.id)).") }
        }
    }
}

struct Comments: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Comments and replies on a post or an entry.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "A post's id.") var post: String?
    @Option(help: "An entry's id.") var entry: String?

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let target = try target(post: post, entry: entry)
            let sdk = session.sdk
            let threads = try await allItems { try await sdk.comments.comments(on: target, page: $0) }
            session.output.show(threads) {
                for thread in threads {
                    print(commentLine(thread.comment, indent: ""))
                    for reply in thread.replies { print(commentLine(reply, indent: "    ↳ ")) }
                }
                if threads.isEmpty { print("No comments yet.") }
            }
        }
    }
}

struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow someone.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Nickname or id.") var user: String

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.follow(try await session.user(user))
            session.output.say("Following \(user).")
        }
    }
}

struct Unfollow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop following someone.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Nickname or id.") var user: String

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.unfollow(try await session.user(user))
            session.output.say("Unfollowed \(user).")
        }
    }
}

struct Followers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Someone's followers (yours by default).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Nickname or id.") var user: String?

    func run() async throws {
        try await listUsers(options, of: user) { sdk, id, page in try await sdk.social.followers(of: id, page: page) }
    }
}

struct Following: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Who someone follows (you by default).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Nickname or id.") var user: String?

    func run() async throws {
        try await listUsers(options, of: user) { sdk, id, page in try await sdk.social.following(of: id, page: page) }
    }
}

/// Prints every page of a follow list of `user` (the signed-in user when `nil`).
func listUsers(
    _ options: GlobalOptions, of user: String?,
    _ fetch: @escaping @Sendable (DiaryRepositories, User.ID, PageRequest) async throws -> Page<User>
) async throws {
    try await withSession(options) { session in
        let me = try await signedIn(session)
        let id = try await session.optionalUser(user) ?? me.id
        let sdk = session.sdk
        let users = try await allItems { try await fetch(sdk, id, $0) }
        session.output.show(users) { printUsers(users) }
    }
}

struct Block: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Block someone: you disappear for each other.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "Nickname or id.") var user: String

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.block(try await session.user(user))
            session.output.say("Blocked \(user).")
        }
    }
}

struct Unblock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Lift a block.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: "The blocked user's id (see `diary blocked`).") var user: String

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.unblock(try parseID(user, as: User.self, "user"))
            session.output.say("Unblocked.")
        }
    }
}

struct Blocked: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Users you blocked.")
    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let sdk = session.sdk
            let users = try await allItems { try await sdk.social.blockedUsers(page: $0) }
            session.output.show(users) { printUsers(users) }
        }
    }
}

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "report", abstract: "Report a user, post, comment or entry.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "spam, abuse, inappropriate, impersonation or other.") var reason: String
    @Option(help: "What is wrong (required for 'other').") var detail = ""
    @Option(help: "A user (nickname or id).") var user: String?
    @Option(help: "A post's id.") var post: String?
    @Option(help: "A comment's id.") var comment: String?
    @Option(help: "An entry's id.") var entry: String?

    func run() async throws {
        guard let reason = ReportReason(rawValue: reason) else {
            throw ValidationError("reason is one of \(ReportReason.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        try await withSession(options) { session in
            try await signedIn(session)
            let target: ReportTarget
            if let user { target = .user(try await session.user(user)) } else if let post {
                target = .post(try parseID(post, as: Post.self, "post"))
            } else if let comment { target = .comment(try parseID(comment, as: Comment.self, "comment")) } else if let entry {
                target = .diary(try parseID(entry, as: Diary.self, "entry"))
            } else { throw ValidationError("say what to report: --user, --post, --comment or --entry") }
            let report = try await session.sdk.social.report(target, reason: reason, detail: detail)
            session.output.show(report) { print("Reported. Thank you.") }
        }
    }
}

struct Notifications: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Your notifications, newest first.")
    @OptionGroup var options: GlobalOptions
    @Flag(help: "Mark them all as read afterwards.") var markRead = false

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let page = try await session.sdk.notifications.notifications(page: .first(size: 50))
            session.output.show(page) {
                print(Output.table(["", "WHAT", "WHO", "WHEN"], page.items.map {
                    [$0.isRead ? " " : "●", describe($0.kind), $0.actor?.nickname ?? "someone", WireDate.string(from: $0.createdAt).prefix(16).description]
                }))
            }
            if markRead { try await session.sdk.notifications.markAllRead() }
        }
    }
}

// MARK: - Helpers

func target(post: String?, entry: String?) throws -> CommentTarget {
    if let post { return .post(try parseID(post, as: Post.self, "post")) }
    if let entry { return .diary(try parseID(entry, as: Diary.self, "entry")) }
    throw ValidationError("say what: --post ID or --entry ID")
}

func printPosts(_ page: Page<Post>) {
    print(Output.table(
        ["WHEN", "BY", "TITLE", "♥", "💬", "ID"],
        page.items.map {
            [$0.day.description, $0.author?.nickname ?? "(anonymous)", Output.preview($0.title, 36), "\($0.likeCount)", "\($0.commentCount)", $0.id.description]
        }))
    if let number = page.pageNumber, let total = page.totalPages {
        print("page \(number) of \(total)\(page.isLastPage ? " (last)" : "")")
    } else if let cursor = page.nextCursor {
        print("more: --cursor \(cursor)")
    }
}

func printUsers(_ users: [User]) {
    print(Output.table(["NICKNAME", "BIO", "ID"], users.map { [$0.nickname, Output.preview($0.bio, 30), $0.id.description] }))
}

func commentLine(_ comment: Comment, indent: String) -> String {
    "\(indent)\(comment.author?.nickname ?? "(anonymous)")\(comment.mood.map { " \($0.rawValue)" } ?? ""): \(comment.body)"
}

func describe(_ kind: NotificationKind) -> String {
    switch kind {
    case .newEntryInBook: "wrote in your book"
    case .newMember: "joined your book"
    case .yourTurn: "passed you the turn"
    case .nudge: "nudged you to write"
    case .commentOnEntry: "commented on your entry"
    case .commentOnPost: "commented on your post"
    case .replyToComment: "replied to your comment"
    }
}
