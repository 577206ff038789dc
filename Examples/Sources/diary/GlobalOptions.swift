import ArgumentParser
import DiarySDK
import DiarySDKFileStore
import DiarySDKHTTP
import Foundation

/// Options every command takes: where the data is and how to print it.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The file store's directory (default: $DIARY_DATA_DIR or your data directory).")
    var dataDir: String?

    @Option(name: .long, help: "Use a DiarySDK server instead of local files, an http(s) URL (default: $DIARY_SERVER).")
    var server: String?

    @Flag(name: .long, help: "Print JSON instead of tables (errors too, on standard error).")
    var json = false

    /// Checks `--server` (or `DIARY_SERVER`) while parsing, so a bad address is invalid input (exit 2).
    func validate() throws {
        _ = try serverURL()
    }

    /// The server to use, if any.
    func serverURL() throws -> URL? {
        guard let server = server ?? ProcessInfo.processInfo.environment["DIARY_SERVER"], !server.isEmpty else { return nil }
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--server must be an http(s) URL such as http://127.0.0.1:8931, not '\(server)'")
        }
        return url
    }

    /// The repositories for this run, and the output.
    /// - Parameter createsStore: Whether a missing local store may be created (only `signup` does: every other
    ///   command needs an account, and must not leave an empty store behind).
    /// - Parameter salvaging: Whether a local store damaged in the middle is read up to the damage, read-only
    ///   (``FileStoreSalvage``), instead of refused: what `diary export` does to save what is readable.
    func open(createsStore: Bool, salvaging: Bool = false) throws -> Session {
        let output = Output(json: json)
        let directory = self.directory
        if let url = try? serverURL() {
            // The server's tokens are kept beside the local data, so the next command signs in automatically.
            let tokens = FileSessionStore(fileURL: directory.appendingPathComponent("server-session.json"))
            let backend = HTTPBackend(configuration: .init(baseURL: url, tokenStore: tokens))
            return Session(sdk: backend.repositories, output: output, close: {})
        }
        if !createsStore, !FileManager.default.fileExists(atPath: directory.appendingPathComponent("store.json").path) {
            throw DiaryError(
                .unauthenticated, "there is no diary in \(directory.path): run `diary signup` first (or pass --data-dir)")
        }
        let backend: FileStoreBackend
        do {
            backend = try FileStoreBackend(configuration: .init(directory: directory))
        } catch let error as DiaryError where error.code == .storageCorrupted {
            guard salvaging else {
                var hint = error
                hint.message += "; `diary export --output FILE` saves what is readable before the damage"
                throw hint
            }
            let salvage = try FileStoreSalvage(directory: directory)
            output.note(
                "the store is damaged (\(error.message)); reading it up to the damage, read-only: "
                    + "\(salvage.report.replayedTransactions) changes after the last snapshot were readable")
            return Session(sdk: salvage.repositories, output: output, close: {})
        }
        let report = backend.openReport
        if report.recoveredTornTail {
            output.note("recovered: \(report.discardedBytes) bytes of an unfinished write dropped")
        }
        return Session(sdk: backend.repositories, output: output, close: { try await backend.close() })
    }

    var directory: URL {
        if let dataDir { return URL(fileURLWithPath: dataDir, isDirectory: true) }
        if let path = ProcessInfo.processInfo.environment["DIARY_DATA_DIR"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return FileStoreBackend.defaultDirectory
    }
}

/// One command's connection to the SDK.
struct Session {
    let sdk: DiaryRepositories
    let output: Output
    let close: () async throws -> Void
}

/// Runs a command body with the SDK, turning every error into one clear line (a JSON object under `--json`) and an
/// exit code: 2 for invalid input, 1 for everything else.
func withSession(
    _ options: GlobalOptions, createsStore: Bool = false, salvaging: Bool = false, _ body: (Session) async throws -> Void
) async throws {
    let output = Output(json: options.json)
    let session: Session
    do {
        session = try options.open(createsStore: createsStore, salvaging: salvaging)
    } catch let error as DiaryError {
        output.fail(error)
        throw ExitCode(error.code == .invalidInput ? 2 : 1)
    }
    do {
        try await body(session)
        try await session.close()
    } catch let error as DiaryError {
        try? await session.close()
        output.fail(error)
        throw ExitCode(error.code == .invalidInput ? 2 : 1)
    } catch {
        try? await session.close()
        throw error
    }
}

/// Runs a step that comes before the session (reading a password), reporting its error like ``withSession(_:createsStore:_:)``.
func reported<Value>(_ options: GlobalOptions, _ body: () throws -> Value) throws -> Value {
    do {
        return try body()
    } catch let error as DiaryError {
        Output(json: options.json).fail(error)
        throw ExitCode(error.code == .invalidInput ? 2 : 1)
    }
}
