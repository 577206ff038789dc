import ArgumentParser
@_spi(Engine) import DiarySDK
import Foundation

struct BlogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blog", abstract: "Blogs whose new posts are imported over RSS, Atom or JSON Feed.",
        subcommands: [Add.self, Blogs.self, Sync.self, Primary.self, Remove.self, Suggest.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a blog by its address or its feed's address.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "A title (the feed's by default).") var title: String?
        @Flag(help: "Make it your primary blog.") var primary = false
        @Argument(help: "What you would type: velog.io/@me, me.tistory.com, a feed URL…") var address: String

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let blog = try await BlogRegistration(blogs: session.sdk.blogs, fetcher: URLSessionFeedFetcher())
                    .register(address, title: title, isPrimary: primary)
                session.output.show(blog) { print("Registered “\(blog.title)”: \(blog.feedURL.absoluteString)") }
            }
        }
    }

    struct Blogs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Your blogs, primary first.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let blogs = try await session.sdk.blogs.blogs(of: nil)
                session.output.show(blogs) {
                    print(Output.table(
                        ["", "TITLE", "FEED", "LAST SYNC", "ID"],
                        blogs.map {
                            [$0.isPrimary ? "★" : " ", $0.title, $0.feedURL.absoluteString,
                                $0.sync.lastError.map { "failed: \($0)" } ?? $0.sync.lastSyncedAt.map { String(WireDate.string(from: $0).prefix(16)) } ?? "never",
                                shortID($0.id)]
                        }, empty: "No blogs yet: `diary blog add ADDRESS` registers one."))
                }
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Import new posts from one blog, or from all with a progress display.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("One blog's id or id prefix; all your blogs when omitted.", valueName: "id"), transform: Parse.id)
        var blog: IDPrefix?

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let sync = BlogSync(blogs: session.sdk.blogs, fetcher: URLSessionFeedFetcher())
                if let blog {
                    let report = try await sync.sync(try await session.blogID(blog))
                    session.output.show(SyncResult(report)) { print(describe(report)) }
                    return
                }
                var failures = 0
                for try await progress in sync.syncAll() {
                    let counter = "[\(progress.finishedCount)/\(progress.totalCount)]"
                    switch progress.event {
                    case .started(let blog): session.output.say("\(counter) syncing \(blog.title)…")
                    case .finished(let blog, let report): session.output.say("\(counter) \(blog.title): \(describe(report))")
                    case .failed(let blog, let error):
                        failures += 1
                        session.output.say("\(counter) \(blog.title): failed — \(error.message)")
                    case .completed(let summary):
                        session.output.show(SyncResult(summary)) {
                            print("Done: \(summary.created) new, \(summary.updated) updated; \(summary.failed) blog(s) failed.")
                        }
                    }
                }
                if failures > 0 { throw ExitCode(1) }
            }
        }

        /// The JSON form of a sync's outcome.
        struct SyncResult: Encodable {
            var notModified: Bool?
            var created: Int
            var updated: Int
            var unchanged: Int
            var failedBlogs: Int?

            init(_ report: BlogSyncReport) {
                (notModified, created, updated, unchanged) = (report.notModified, report.created, report.updated, report.unchanged)
            }

            init(_ summary: BlogSyncSummary) {
                (created, updated, unchanged, failedBlogs) = (summary.created, summary.updated, summary.unchanged, summary.failed)
            }
        }

        func describe(_ report: BlogSyncReport) -> String {
            report.notModified
                ? "not modified since the last sync"
                : "\(report.created) new, \(report.updated) updated, \(report.unchanged) unchanged"
        }
    }

    struct Primary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a blog your primary one.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The blog's id or id prefix.", valueName: "id"), transform: Parse.id) var blog: IDPrefix

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                let updated = try await session.sdk.blogs.setPrimary(try await session.blogID(blog))
                session.output.show(updated) { print("★ \(updated.title) is your primary blog.") }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Stop importing a blog (its posts stay).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: ArgumentHelp("The blog's id or id prefix.", valueName: "id"), transform: Parse.id) var blog: IDPrefix

        func run() async throws {
            try await withSession(options) { session in
                try await signedIn(session)
                try await session.sdk.blogs.deleteBlog(try await session.blogID(blog))
                session.output.done("Deleted.")
            }
        }
    }

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Feed addresses to try for what you typed (no network).")
        @Argument(help: "A blog address.") var address: String
        @Flag(help: "Print JSON instead of lines.") var json = false

        func run() async throws {
            let suggestions = FeedURLRules.suggestions(forUserInput: address).map(\.absoluteString)
            Output(json: json).show(suggestions) { for url in suggestions { print(url) } }
        }
    }
}
