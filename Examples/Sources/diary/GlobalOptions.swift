import ArgumentParser
import DiarySDK
import DiarySDKFileStore
import DiarySDKHTTP
import Foundation

/// Options every command takes: where the data is and how to print it.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The file store's directory (default: $DIARY_DATA_DIR or your data directory).")
    var dataDir: String?

    @Option(name: .long, help: "Use a DiarySDK server instead of local files (default: $DIARY_SERVER).")
    var server: String?

    @Flag(name: .long, help: "Print JSON instead of tables.")
    var json = false

    /// The repositories for this run, and the output.
    func open() throws -> Session {
        let environment = ProcessInfo.processInfo.environment
        let output = Output(json: json)
        if let server = server ?? environment["DIARY_SERVER"], !server.isEmpty {
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw DiaryError.invalid("server", .invalidFormat, "--server must be an http(s) URL, got '\(server)'")
            }
            // The server's tokens are kept beside the local data, so the next command signs in automatically.
            let tokens = FileSessionStore(fileURL: directory(environment).appendingPathComponent("server-session.json"))
            let backend = HTTPBackend(configuration: .init(baseURL: url, tokenStore: tokens))
            return Session(sdk: backend.repositories, output: output, close: {})
        }
        let backend = try FileStoreBackend(configuration: .init(directory: directory(environment)))
        return Session(sdk: backend.repositories, output: output, close: { try await backend.close() })
    }

    private func directory(_ environment: [String: String]) -> URL {
        if let dataDir { return URL(fileURLWithPath: dataDir, isDirectory: true) }
        if let path = environment["DIARY_DATA_DIR"], !path.isEmpty { return URL(fileURLWithPath: path, isDirectory: true) }
        return FileStoreBackend.defaultDirectory
    }
}

/// One command's connection to the SDK.
struct Session {
    let sdk: DiaryRepositories
    let output: Output
    let close: () async throws -> Void

    /// Resolves an optional user argument.
    func optionalUser(_ text: String?) async throws -> User.ID? {
        guard let text else { return nil }
        return try await user(text)
    }

    /// Resolves a user given as a UUID or a nickname.
    func user(_ text: String) async throws -> User.ID {
        if let id = User.ID(text) { return id }
        let nickname = text.hasPrefix("@") ? String(text.dropFirst()) : text
        let matches = try await sdk.users.searchUsers(nickname, page: .first(size: 100)).items
        guard let user = matches.first(where: { $0.nickname.lowercased() == nickname.lowercased() }) else {
            throw DiaryError.notFound("user '\(nickname)'")
        }
        return user.id
    }
}

/// Runs a command body with the SDK, turning every error into one clear line and a non-zero exit code.
func withSession(_ options: GlobalOptions, _ body: (Session) async throws -> Void) async throws {
    let session: Session
    do {
        session = try options.open()
    } catch let error as DiaryError {
        Output.fail(error)
        throw ExitCode(1)
    }
    do {
        try await body(session)
        try await session.close()
    } catch let error as DiaryError {
        try? await session.close()
        Output.fail(error)
        throw ExitCode(error.code == .invalidInput ? 2 : 1)
    } catch {
        try? await session.close()
        throw error
    }
}

/// Parses ids given on the command line.
func parseID<Entity>(_ text: String, as _: Entity.Type, _ what: String) throws -> EntityID<Entity> {
    guard let id = EntityID<Entity>(text) else { throw ValidationError("'\(text)' is not a \(what) id") }
    return id
}
