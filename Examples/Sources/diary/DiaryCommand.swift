import ArgumentParser
import DiarySDK
import Foundation

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
            Write.self, Edit.self, Delete.self, Hide.self, Unhide.self, Favourite.self, Unfavourite.self, List.self,
            CalendarCommand.self,
            BookCommand.self,
            Publish.self, Feed.self, Search.self, Like.self, Unlike.self, Likes.self, CommentCommand.self,
            Comments.self, Follow.self, Unfollow.self, Followers.self, Following.self, Block.self, Unblock.self,
            Blocked.self, ReportCommand.self, Notifications.self,
            BlogCommand.self, Export.self,
        ]
    )

    /// Parses and runs a command like ArgumentParser's own `main()`, with this program's exit codes: 0 for success
    /// and help, 2 for invalid input (a bad value, a missing or unknown option, a `validate()` failure), 1 for any
    /// other failure. Under `--json`, an error is a JSON object on standard error.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            // Already reported by the command.
            Self.exit(withError: code)
        } catch {
            let code = exitCode(for: error)
            if code == .success { Self.exit(withError: error) }
            let invalidInput = code == .validationFailure
            if json {
                Output.failJSON(code: invalidInput ? "invalid_input" : "failed", message: message(for: error))
            } else {
                let text = fullMessage(for: error)
                Output.standardError("diary: " + (text.hasPrefix("Error: ") ? String(text.dropFirst(7)) : text))
            }
            Self.exit(withError: ExitCode(invalidInput ? 2 : 1))
        }
    }
}
