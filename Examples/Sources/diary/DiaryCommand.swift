import ArgumentParser
import DiarySDK

/// `diary`: the whole SDK from a terminal, on the embedded file store (or a server with `--server`).
@main
struct DiaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary",
        abstract: "A diary, TIL journal and small community in your terminal, built on DiarySDK.",
        discussion: """
            Data lives in a file store in your data directory (override with --data-dir or DIARY_DATA_DIR), or on a
            DiarySDK server with --server URL (or DIARY_SERVER). Start with `diary demo` for a guided tour.
            """,
        subcommands: [
            Demo.self,
            SignUp.self, SignIn.self, SignOut.self, WhoAmI.self, Withdraw.self,
            Write.self, Edit.self, Delete.self, Hide.self, Favourite.self, List.self, CalendarCommand.self,
            BookCommand.self,
            Publish.self, Feed.self, Search.self, Like.self, Unlike.self, Likes.self, CommentCommand.self,
            Comments.self, Follow.self, Unfollow.self, Followers.self, Following.self, Block.self, Unblock.self,
            Blocked.self, ReportCommand.self, Notifications.self,
            BlogCommand.self,
        ]
    )
}
