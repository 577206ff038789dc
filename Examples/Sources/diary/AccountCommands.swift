import ArgumentParser
import DiarySDK

struct SignUp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signup", abstract: "Create an account and sign in.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "Your email.") var email: String
    @Option(help: "A unique nickname.") var nickname: String
    /// A password of at least 8 characters.
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let password = try reported(options) { try self.password.read(confirm: true) }
        try await withSession(options, createsStore: true) { session in
            let user = try await session.sdk.accounts.signUp(.init(email: email, password: password, nickname: nickname))
            session.output.show(user) { print("Welcome, \(user.nickname)! You are signed in.") }
        }
    }
}

struct SignIn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signin", abstract: "Sign in.")
    @OptionGroup var options: GlobalOptions
    @Option(help: "Your email.") var email: String
    @OptionGroup var password: PasswordOptions

    func run() async throws {
        let password = try reported(options) { try self.password.read(confirm: false) }
        try await withSession(options) { session in
            let user = try await session.sdk.accounts.signIn(.password(email: email, password: password))
            session.output.show(user) { print("Signed in as \(user.nickname).") }
        }
    }
}

struct SignOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signout", abstract: "Sign out.")
    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await withSession(options) { session in
            _ = try await session.sdk.accounts.restoreSession()
            try await session.sdk.accounts.signOut()
            session.output.done("Signed out.")
        }
    }
}

struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show who is signed in.")
    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await withSession(options) { session in
            guard let user = try await session.sdk.accounts.restoreSession() else { throw DiaryError.notSignedIn }
            session.output.show(user) {
                print("\(user.nickname) <\(user.email ?? "")>  id \(user.id)")
                if !user.bio.isEmpty { print(user.bio) }
            }
        }
    }
}

struct Withdraw: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete your account and everything you wrote.")
    @OptionGroup var options: GlobalOptions
    @Flag(help: "Confirm that everything should be deleted.") var yes = false

    func validate() throws {
        guard yes else { throw ValidationError("withdrawing deletes everything you wrote: pass --yes to confirm") }
    }

    func run() async throws {
        try await withSession(options) { session in
            try await signedIn(session)
            try await session.sdk.accounts.withdraw()
            session.output.done("Your account and everything you wrote are deleted.")
        }
    }
}

/// Restores the saved session or fails with "not signed in".
@discardableResult
func signedIn(_ session: Session) async throws -> User {
    guard let user = try await session.sdk.accounts.restoreSession() else {
        throw DiaryError(.unauthenticated, "no one is signed in: run `diary signin` or `diary signup`")
    }
    return user
}
