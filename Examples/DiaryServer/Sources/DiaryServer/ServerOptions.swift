import Foundation
import Logging

/// The server's settings, from command-line flags first and environment variables second.
struct ServerOptions: Sendable {
    var hostname = "127.0.0.1"
    var port = 8080
    var dataDirectory: URL?
    var inMemory = false
    var testMode = false
    var jwtSecret: String?
    /// The token keys from `DIARY_JWT_KEYS_FILE` (environment only: the file holds secrets), the signing key first.
    var jwtKeys: SigningKeySet?
    var accessTokenLifetime: TimeInterval = 15 * 60
    var refreshTokenLifetime: TimeInterval = 30 * 24 * 60 * 60
    var passwordHashIterations = 100_000
    var exitWhenStdinCloses = false
    /// Sign-up, sign-in and email-availability requests one client address may make in a burst, and per
    /// `authRatePeriod`; 0 turns the limit off.
    var authRateLimit = 10
    /// Seconds over which a client earns `authRateLimit` requests back.
    var authRatePeriod: TimeInterval = 60
    /// Seconds during which the refresh token just rotated away is still answered (with the same new pair), so a
    /// client whose refresh answer was lost keeps its session.
    var refreshGracePeriod: TimeInterval = 120

    /// Where recorded worlds' exchanges are appended (test mode only).
    var contractLog: URL?
    /// The PostgreSQL database (`DIARY_DATABASE_URL` or the file `DIARY_DATABASE_URL_FILE`), environment only: it may
    /// hold a password, so it is never logged nor taken from the command line.
    var databaseURL: String?
    /// The schema of the main world's tables (`DIARY_DATABASE_SCHEMA`); test worlds get schemas of their own.
    var databaseSchema = "public"
    /// The most connections the main world's pool opens (`DIARY_DATABASE_MAX_CONNECTIONS`).
    var databaseMaxConnections = 20
    /// The lowest level logged (`DIARY_LOG_LEVEL`: trace, debug, info, notice, warning, error, critical).
    var logLevel: Logger.Level = .info
    /// Seconds a SIGTERM or SIGINT waits for the requests in flight before cancelling them (`DIARY_DRAIN_SECONDS`).
    var drainSeconds = 20
    /// The port of the Prometheus endpoint (`DIARY_METRICS_PORT`); none when `nil`. Never the API's port.
    var metricsPort: Int?
    /// The address of the metrics port (`DIARY_METRICS_HOSTNAME`).
    var metricsHostname = "127.0.0.1"
    /// What the server should say at start-up about its options (a secret on the command line).
    var warnings: [String] = []

    static let usage = """
        usage: DiaryServer [--hostname 127.0.0.1] [--port 8080] [--data-dir PATH | --in-memory] [--jwt-secret SECRET]
                           [--access-token-lifetime SECONDS] [--refresh-grace-period SECONDS]
                           [--auth-rate-limit N] [--auth-rate-period SECONDS] [--test-mode] [--exit-on-stdin-close]
                           [--contract-log PATH]
        environment: DIARY_HOSTNAME, DIARY_PORT, DIARY_DATA_DIR, DIARY_JWT_SECRET, DIARY_JWT_SECRET_FILE, DIARY_JWT_KEYS_FILE,
                     DIARY_TEST_MODE=1,
                     DIARY_AUTH_RATE_LIMIT, DIARY_AUTH_RATE_PERIOD,
                     DIARY_DATABASE_URL, DIARY_DATABASE_URL_FILE, DIARY_DATABASE_SCHEMA, DIARY_DATABASE_MAX_CONNECTIONS,
                     DIARY_LOG_LEVEL, DIARY_DRAIN_SECONDS, DIARY_METRICS_PORT, DIARY_METRICS_HOSTNAME
        DIARY_DATABASE_URL (postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]), or
        DIARY_DATABASE_URL_FILE naming a file that holds it, runs the server on PostgreSQL 15+ instead of --data-dir:
        the tables go in DIARY_DATABASE_SCHEMA (default public), created or upgraded at start-up; the pool opens at most
        DIARY_DATABASE_MAX_CONNECTIONS (default 20). Several servers may share one database and schema. The URL is
        read from the environment only and never logged. DIARY_JWT_SECRET_FILE names a file holding the token
        signing secret; --jwt-secret works but shows the secret to anyone who can list processes (`ps`).
        DIARY_JWT_KEYS_FILE names a file of signing keys, one `ID SECRET` a line, the signing key first; tokens name
        their key (`kid`), so a key listed later still verifies the tokens it signed (docs/Deploying.md, rotation).
        DIARY_LOG_LEVEL (trace, debug, info, notice, warning, error, critical; default info): one line per request on
        standard output with its X-Request-ID (docs/Deploying.md, "Logs"). SIGTERM or SIGINT stops accepting
        connections and waits up to DIARY_DRAIN_SECONDS (default 20) for the requests in flight, then exits 0.
        DIARY_METRICS_PORT serves Prometheus metrics at GET /metrics on that port (0 picks one), on
        DIARY_METRICS_HOSTNAME (default 127.0.0.1); never on the API's port. Off when unset.
        GET /health answers while the process serves; GET /ready answers 200 once the storage answers a read, else 503.
        --auth-rate-limit N / --auth-rate-period SECONDS: sign-up, sign-in and email-availability requests per client address
        (a token bucket: N at once, N more per period; 10 per 60 s by default; 0 turns it off); more answer 429.
        --test-mode enables /v1/_test/* (clock, worlds, faults, stats), the `test:<subject>:<email>` identity tokens and
        cheap password hashing. Never use it in production. --port 0 picks a free port (printed at start-up);
        --exit-on-stdin-close stops the server when its parent (a test run) goes away. --contract-log (test mode) appends
        the exchanges of worlds created with `?record=true` to PATH as JSON lines for scripts/validate_contract.py.
        """

    /// Reads flags and environment.
    /// - Throws: `OptionsError` for an unknown flag or a malformed value.
    static func parse(_ arguments: [String], environment: [String: String]) throws -> ServerOptions {
        var options = ServerOptions()
        if let value = environment["DIARY_HOSTNAME"] { options.hostname = value }
        if let value = environment["DIARY_PORT"] { options.port = try integer(value, "DIARY_PORT") }
        if let value = environment["DIARY_DATA_DIR"] { options.dataDirectory = URL(fileURLWithPath: value) }
        if let value = environment["DIARY_JWT_SECRET"] { options.jwtSecret = value }
        if let path = environment["DIARY_JWT_SECRET_FILE"] {
            options.jwtSecret = try secret(fromFile: path, "DIARY_JWT_SECRET_FILE")
        }
        if let path = environment["DIARY_JWT_KEYS_FILE"] {
            do {
                options.jwtKeys = try SigningKeySet.parse(file: try secret(fromFile: path, "DIARY_JWT_KEYS_FILE"))
            } catch let error as OptionsError where !error.message.hasPrefix("DIARY_JWT_KEYS_FILE") {
                throw OptionsError(message: "DIARY_JWT_KEYS_FILE: \(error.message)")
            }
        }
        if let value = environment["DIARY_DATABASE_URL"], !value.isEmpty { options.databaseURL = value }
        if let path = environment["DIARY_DATABASE_URL_FILE"] {
            options.databaseURL = try secret(fromFile: path, "DIARY_DATABASE_URL_FILE")
        }
        if let value = environment["DIARY_DATABASE_SCHEMA"], !value.isEmpty { options.databaseSchema = value }
        if let value = environment["DIARY_DATABASE_MAX_CONNECTIONS"] {
            options.databaseMaxConnections = max(1, try integer(value, "DIARY_DATABASE_MAX_CONNECTIONS"))
        }
        if environment["DIARY_TEST_MODE"] == "1" { options.testMode = true }
        if let value = environment["DIARY_LOG_LEVEL"], !value.isEmpty {
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw OptionsError(
                    message: "DIARY_LOG_LEVEL must be trace, debug, info, notice, warning, error or critical, got '\(value)'")
            }
            options.logLevel = level
        }
        if let value = environment["DIARY_METRICS_PORT"], !value.isEmpty {
            options.metricsPort = try integer(value, "DIARY_METRICS_PORT")
        }
        if let value = environment["DIARY_METRICS_HOSTNAME"], !value.isEmpty { options.metricsHostname = value }
        if let value = environment["DIARY_DRAIN_SECONDS"] {
            options.drainSeconds = try integer(value, "DIARY_DRAIN_SECONDS")
        }
        if let value = environment["DIARY_AUTH_RATE_LIMIT"] { options.authRateLimit = try integer(value, "DIARY_AUTH_RATE_LIMIT") }
        if let value = environment["DIARY_AUTH_RATE_PERIOD"] {
            options.authRatePeriod = TimeInterval(try integer(value, "DIARY_AUTH_RATE_PERIOD"))
        }
        var index = 0
        func next(_ flag: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw OptionsError(message: "\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--hostname": options.hostname = try next(flag)
            case "--port": options.port = try integer(try next(flag), flag)
            case "--data-dir": options.dataDirectory = URL(fileURLWithPath: try next(flag))
            case "--in-memory": options.inMemory = true
            case "--exit-on-stdin-close": options.exitWhenStdinCloses = true
            case "--test-mode": options.testMode = true
            case "--jwt-secret":
                options.jwtSecret = try next(flag)
                options.warnings.append(
                    "--jwt-secret shows the secret to anyone who can list processes (ps): prefer DIARY_JWT_SECRET_FILE")
            case "--contract-log": options.contractLog = URL(fileURLWithPath: try next(flag))
            case "--access-token-lifetime": options.accessTokenLifetime = TimeInterval(try integer(try next(flag), flag))
            case "--refresh-grace-period": options.refreshGracePeriod = TimeInterval(try integer(try next(flag), flag))
            case "--auth-rate-limit": options.authRateLimit = try integer(try next(flag), flag)
            case "--auth-rate-period": options.authRatePeriod = TimeInterval(try integer(try next(flag), flag))
            case "--help", "-h": throw OptionsError(message: usage, isHelp: true)
            default: throw OptionsError(message: "unknown option \(flag)\n\(usage)")
            }
            index += 1
        }
        if options.testMode { options.passwordHashIterations = 100 }
        if options.jwtKeys != nil, options.jwtSecret != nil {
            throw OptionsError(
                message: "DIARY_JWT_KEYS_FILE and a single secret (DIARY_JWT_SECRET_FILE, DIARY_JWT_SECRET, --jwt-secret) "
                    + "exclude each other: list the secret in the key file (as 'default' for the tokens it signed)")
        }
        if options.contractLog != nil && !options.testMode {
            throw OptionsError(message: "--contract-log needs --test-mode\n\(usage)")
        }
        if options.databaseURL != nil {
            guard !options.inMemory else {
                throw OptionsError(message: "--in-memory and DIARY_DATABASE_URL exclude each other\n\(usage)")
            }
            if options.dataDirectory != nil {
                options.warnings.append("--data-dir / DIARY_DATA_DIR is unused: DIARY_DATABASE_URL is set")
            }
            // The URL is checked here so a bad one stops the server before it listens; the error never repeats it.
            do {
                _ = try options.databaseEndpoint()
            } catch {
                throw OptionsError(message: "DIARY_DATABASE_URL: \(error)")
            }
        } else if options.dataDirectory == nil && !options.inMemory {
            throw OptionsError(
                message: "give --data-dir PATH (or DIARY_DATA_DIR), --in-memory, or DIARY_DATABASE_URL\n\(usage)")
        }
        return options
    }

    /// Where the data lives, for the start-up log line: never the database URL itself, only its host, port,
    /// database and schema.
    var storageDescription: String {
        if databaseURL != nil {
            guard let endpoint = try? databaseEndpoint() else { return "PostgreSQL" }
            return "PostgreSQL at \(endpoint.host):\(endpoint.port), database \(endpoint.database), schema \(databaseSchema)"
        }
        if inMemory { return "memory" }
        return "the file store in \(dataDirectory?.path ?? "?")"
    }

    /// The host, port and database the database URL names (never its user or password).
    /// - Throws: `OptionsError` when the URL is not a `postgres://` URL with a host and a database.
    func databaseEndpoint() throws -> (host: String, port: Int, database: String) {
        guard let databaseURL, let components = URLComponents(string: databaseURL),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, !host.isEmpty
        else { throw OptionsError(message: "not a postgres://user@host[:port]/database URL") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw OptionsError(message: "the URL names no database") }
        return (host, components.port ?? 5432, database)
    }

    /// A secret held in a file (a mounted secret), without the line break editors and `echo` add.
    private static func secret(fromFile path: String, _ name: String) throws -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw OptionsError(message: "\(name): cannot read \(path)")
        }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else { throw OptionsError(message: "\(name): \(path) is empty") }
        return value
    }

    private static func integer(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), value >= 0 else { throw OptionsError(message: "\(name) must be a number, got '\(text)'") }
        return value
    }
}

/// A bad command line.
struct OptionsError: Error, CustomStringConvertible {
    var message: String
    /// `--help`: the message is the usage, printed to standard output with exit status 0.
    var isHelp = false
    var description: String { message }
}

extension ServerOptions: CustomStringConvertible {
    /// The options without their secrets: the JWT secret and the database URL are only said to be set.
    var description: String {
        "ServerOptions(hostname: \(hostname), port: \(port), storage: \(storageDescription), testMode: \(testMode), "
            + "jwtSecret: \(jwtSecret == nil ? "none" : "set"), "
            + "jwtKeys: \(jwtKeys.map { $0.keys.map(\.id).joined(separator: ",") } ?? "none"), databaseURL: \(databaseURL == nil ? "none" : "set"))"
    }
}
