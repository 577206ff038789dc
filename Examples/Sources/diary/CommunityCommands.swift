import ArgumentParser
@_spi(Engine) import DiarySDK
import Foundation

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "post", abstract: "Publish a community post.")
    @OptionGroup var options: GlobalOptions
    @Flag(help: "Post without showing your name.") var anonymous = false
    @Option(name: .customLong("tag"), help: "A tag (repeatable).") var tags: [String] = []
    @Option(help: ArgumentHelp("Share one of your entries instead of writing a post (its id or id prefix).", valueName: "id"), transform: Parse.id)
    var entry: IDPrefix?
    @Argument(help: "The title, then the text.") var words: [String] = []

    func validate() throws {
        if entry == nil, words.isEmpty { throw ValidationError("give a title and a text, or --entry ID") }
        if entry != nil, !words.isEmpty { throw ValidationError("--entry shares an entry as it is: give no title or text with it") }
    }

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let post: Post
            if let entry {
                post = try await session.sdk.posts.share(try await session.entryID(entry), isAnonymous: anonymous)
            } else {
                let title = words[0]
                post = try await session.sdk.posts.publish(
                    .init(title: title, body: words.dropFirst().joined(separator: " "), tags: tags, isAnonymous: anonymous))
            }
            session.output.show(post) { print("Published post \(shortID(post.id)).") }
        }
    }
}

struct Feed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The community feed, newest first.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "A page number (numbered paging).") var page: Int?
    @Option(help: "Continue after this cursor (from the previous page).") var cursor: String?
    @Option(help: "Posts per page.") var size = 10
    @Option(help: ArgumentHelp("Only this user's posts: nickname, id, id prefix or 'me'.", valueName: "user"), transform: Parse.user)
    var user: UserReference?

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let request: PageRequest =
                if let page { .number(page, size: size) } else if let cursor { .after(PageCursor(rawValue: cursor), size: size) } else {
                    .first(size: size)
                }
            let result: Page<Post>
            if let user {
                result = try await session.sdk.posts.posts(by: try await session.user(user), page: request)
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
    @Argument(help: ArgumentHelp("The post's id or id prefix.", valueName: "id"), transform: Parse.id) var post: IDPrefix

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let liked = try await session.sdk.posts.like(try await session.postID(post))
            session.output.show(liked) { print("♥ \(liked.likeCount)") }
        }
    }
}

struct Unlike: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove your like.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The post's id or id prefix.", valueName: "id"), transform: Parse.id) var post: IDPrefix

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let post = try await session.sdk.posts.unlike(try await session.postID(post))
            session.output.show(post) { print("♡ \(post.likeCount)") }
        }
    }
}

struct Likes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Posts you (or someone) liked.")
    @OptionGroup var options: GlobalOptions
    @Option(help: ArgumentHelp("Whose likes: nickname, id, id prefix or 'me' (the default).", valueName: "user"), transform: Parse.user)
    var user: UserReference?

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
    @OptionGroup var target: CommentTargetOptions
    @Option(help: ArgumentHelp("Reply to this comment (its id or id prefix, as `diary comments` shows).", valueName: "id"), transform: Parse.id)
    var replyTo: IDPrefix?
    @Option(help: ArgumentHelp("A mood for a mood comment: \(Parse.moodList).", valueName: "mood"), transform: Parse.mood)
    var mood: Mood?
    @Flag(help: "Comment without showing your name.") var anonymous = false
    @Argument(help: "The text.") var body: [String]

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let target = try await self.target.resolve(session)
            let parentID = try await replyTo.asyncMap { try await session.commentID($0, on: target) }
            let draft = CommentDraft(
                target: target, parentID: parentID, body: body.joined(separator: " "), mood: mood, isAnonymous: anonymous)
            let comment = try await session.sdk.comments.addComment(draft)
            session.output.show(comment) { print("Commented (\(shortID(comment.id))).") }
        }
    }
}

struct Comments: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Comments and replies on a post or an entry.")
    @OptionGroup var options: GlobalOptions
    @OptionGroup var target: CommentTargetOptions

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let target = try await self.target.resolve(session)
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
    @Argument(help: ArgumentHelp("Nickname, id, id prefix or 'me'.", valueName: "user"), transform: Parse.user) var user: UserReference

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.follow(try await session.user(user))
            session.output.done("Following \(user).")
        }
    }
}

struct Unfollow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop following someone.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("Nickname, id, id prefix or 'me'.", valueName: "user"), transform: Parse.user) var user: UserReference

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.unfollow(try await session.user(user))
            session.output.done("Unfollowed \(user).")
        }
    }
}

struct Followers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Someone's followers (yours by default).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("Nickname, id, id prefix or 'me' (the default).", valueName: "user"), transform: Parse.user)
    var user: UserReference?

    func run() async throws {
        try await listUsers(options, of: user) { sdk, id, page in try await sdk.social.followers(of: id, page: page) }
    }
}

struct Following: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Who someone follows (you by default).")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("Nickname, id, id prefix or 'me' (the default).", valueName: "user"), transform: Parse.user)
    var user: UserReference?

    func run() async throws {
        try await listUsers(options, of: user) { sdk, id, page in try await sdk.social.following(of: id, page: page) }
    }
}

/// Prints every page of a follow list of `user` (the signed-in user when `nil`).
func listUsers(
    _ options: GlobalOptions, of user: UserReference?,
    _ fetch: @escaping @Sendable (DiaryRepositories, User.ID, PageRequest) async throws -> Page<User>
) async throws {
    try await withSession(options) { session in
        let me = try await signedIn(session)
        let id = try await session.optionalUser(user) ?? me.id
        let sdk = session.sdk
        let users = try await allItems { try await fetch(sdk, id, $0) }
        session.output.show(users) { printUsers(users, empty: "Nobody yet.") }
    }
}

struct Block: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Block someone: you disappear for each other.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("Nickname, id, id prefix or 'me'.", valueName: "user"), transform: Parse.user) var user: UserReference

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.block(try await session.user(user))
            session.output.done("Blocked \(user).")
        }
    }
}

struct Unblock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Lift a block.")
    @OptionGroup var options: GlobalOptions
    @Argument(help: ArgumentHelp("The blocked user: nickname, id or id prefix (as `diary blocked` lists).", valueName: "user"), transform: Parse.user)
    var user: UserReference

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.social.unblock(try await session.user(user))
            session.output.done("Unblocked \(user).")
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
            session.output.show(users) { printUsers(users, empty: "You have not blocked anyone.") }
        }
    }
}

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "report", abstract: "Report a user, post, comment or entry.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "\(ReportReason.allCases.map(\.rawValue).joined(separator: ", ")).", transform: Parse.reportReason)
    var reason: ReportReason
    @Option(help: "What is wrong (required for 'other').") var detail = ""
    @Option(help: ArgumentHelp("A user: nickname, id or id prefix.", valueName: "user"), transform: Parse.user)
    var user: UserReference?
    @Option(help: ArgumentHelp("A post's id or id prefix.", valueName: "id"), transform: Parse.id) var post: IDPrefix?
    @Option(help: ArgumentHelp("A comment's whole id (see `diary comments`).", valueName: "id"), transform: Parse.id)
    var comment: IDPrefix?
    @Option(help: ArgumentHelp("An entry's id or id prefix.", valueName: "id"), transform: Parse.id) var entry: IDPrefix?

    func validate() throws {
        let given = [user != nil, post != nil, comment != nil, entry != nil].filter { $0 }.count
        guard given == 1 else {
            throw ValidationError(
                given == 0 ? "say what to report: --user, --post, --comment or --entry" : "report one thing at a time")
        }
    }

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            let target: ReportTarget
            if let user {
                target = .user(try await session.user(user))
            } else if let post {
                target = .post(try await session.postID(post))
            } else if let comment {
                target = .comment(try await session.commentID(comment, on: nil))
            } else {
                target = .diary(try await session.entryID(entry!))
            }
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
            var titles: [DiaryBook.ID: String] = [:]
            for id in Set(page.items.compactMap(\.bookID)) {
                titles[id] = (try? await session.sdk.books.book(id).title) ?? "a book you left"
            }
            session.output.show(page) {
                print(Output.table(["", "WHAT", "WHEN"], page.items.map {
                    [$0.isRead ? " " : "●", sentence($0, bookTitle: $0.bookID.flatMap { titles[$0] }),
                        WireDate.string(from: $0.createdAt).prefix(16).description]
                }, empty: "No notifications."))
            }
            if markRead { try await session.sdk.notifications.markAllRead() }
        }
    }
}

// MARK: - Helpers

/// `--post` or `--entry`: what a comment is on. Exactly one must be given.
struct CommentTargetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A post's id or id prefix.", valueName: "id"), transform: Parse.id) var post: IDPrefix?
    @Option(help: ArgumentHelp("An entry's id or id prefix.", valueName: "id"), transform: Parse.id) var entry: IDPrefix?

    func validate() throws {
        switch (post, entry) {
        case (nil, nil): throw ValidationError("say what the comments are on: --post ID or --entry ID")
        case (.some, .some): throw ValidationError("give --post or --entry, not both")
        default: break
        }
    }

    func resolve(_ session: Session) async throws -> CommentTarget {
        if let post { return .post(try await session.postID(post)) }
        return .diary(try await session.entryID(entry!))
    }
}

func printPosts(_ page: Page<Post>) {
    print(Output.table(
        ["WHEN", "BY", "TITLE", "♥", "💬", "ID"],
        page.items.map {
            [$0.day.description, $0.author?.nickname ?? "(anonymous)", Output.preview($0.title, 36), "\($0.likeCount)", "\($0.commentCount)", shortID($0.id)]
        }, empty: "No posts."))
    if let number = page.pageNumber, let total = page.totalPages {
        print("page \(number) of \(total)\(page.isLastPage ? " (last)" : "")")
    } else if let cursor = page.nextCursor {
        print("more: --cursor \(cursor)")
    }
}

func printUsers(_ users: [User], empty: String) {
    print(Output.table(["NICKNAME", "BIO", "ID"], users.map { [$0.nickname, Output.preview($0.bio, 30), shortID($0.id)] }, empty: empty))
}

func commentLine(_ comment: Comment, indent: String) -> String {
    "\(indent)\(shortID(comment.id))  \(comment.author?.nickname ?? "(anonymous)")\(comment.mood.map { " \($0.rawValue)" } ?? ""): \(comment.body)"
}

/// A notification as a sentence that names who and which book: "joon wrote in Duck book".
func sentence(_ notification: DiaryNotification, bookTitle: String?) -> String {
    let who = notification.actor?.nickname ?? "someone"
    let book = bookTitle ?? "your book"
    return switch notification.kind {
    case .newEntryInBook: "\(who) wrote in \(book)"
    case .newMember: "\(who) joined \(book)"
    case .yourTurn: notification.actor == nil ? "it is your turn in \(book)" : "\(who) passed you the turn in \(book)"
    case .nudge: "\(who) nudged you to write in \(book)"
    case .commentOnEntry: "\(who) commented on your entry"
    case .commentOnPost: "\(who) commented on your post"
    case .replyToComment: "\(who) replied to your comment"
    }
}
