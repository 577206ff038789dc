import ArgumentParser
import DiarySDK
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a password comes from, safest first: a prompt that does not echo (when standard input is a terminal), the
/// first line of standard input (`--password-stdin`, for scripts, as `docker login` takes it), or `--password`
/// (discouraged: a command line is visible to every user in `ps` and stays in shell history).
struct PasswordOptions: ParsableArguments {
    @Flag(help: "Read the password from the first line of standard input (for scripts).")
    var passwordStdin = false

    @Option(
        help: ArgumentHelp(
            "The password on the command line. Discouraged: others see it in `ps` and it stays in your shell history; leave it out to be asked, or use --password-stdin.",
            valueName: "password"))
    var password: String?

    func validate() throws {
        if passwordStdin, password != nil { throw ValidationError("give --password or --password-stdin, not both") }
    }

    /// Reads the password.
    /// - Parameter confirm: Ask twice at a prompt (a new password).
    /// - Throws: `.invalidInput` on `password` when there is none to read.
    func read(confirm: Bool) throws -> String {
        if let password { return password }
        if passwordStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw DiaryError.invalid("password", .blank, "--password-stdin read no password from standard input")
            }
            return line.hasSuffix("\r") ? String(line.dropLast()) : line
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw DiaryError.invalid(
                "password", .blank,
                "no password: pipe it in with --password-stdin, or run in a terminal to be asked for it")
        }
        let password = try Self.prompt("Password: ")
        if confirm, try Self.prompt("Repeat it: ") != password {
            throw DiaryError.invalid("password", .invalidFormat, "the two passwords differ")
        }
        return password
    }

    /// Asks on the terminal with echo turned off (before the prompt is shown, so nothing typed after it is echoed;
    /// what was typed before it is discarded, as `getpass` does), and turns echo back on.
    private static func prompt(_ text: String) throws -> String {
        var saved = termios()
        let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
        if canHide {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if canHide { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        FileHandle.standardError.write(Data(text.utf8))
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw DiaryError.invalid("password", .blank, "no password was typed")
        }
        return line
    }
}
