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
    /// Seconds a change log row is kept on PostgreSQL (`DIARY_CHANGE_LOG_RETENTION`, `--change-log-retention`,
    /// default 7 days): how long a change stream can resume after a position.
    var changeLogRetention: TimeInterval = 7 * 24 * 60 * 60
    /// The most change log rows kept (`DIARY_CHANGE_LOG_ROWS`, `--change-log-rows`): on PostgreSQL, on top of
    /// ``changeLogRetention`` (none by default); for the file store and `--in-memory`, the transactions each process
    /// keeps in memory (1,000 by default).
    var changeLogRows: Int?
    /// Seconds between maintenance rounds (`DIARY_MAINTENANCE_INTERVAL`, default an hour; 0 turns them off).
    var maintenanceInterval: TimeInterval = 60 * 60
    /// Proxies whose `X-Forwarded-For` names the client (`DIARY_TRUSTED_PROXIES`, comma-separated blocks); none by
    /// default, so the peer address is the client.
    var trustedProxies: [AddressBlock] = []
    /// The configuration file read, if any (`--config` or `DIARY_CONFIG_FILE`).
    var configFile: URL?
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

    /// Variables that give one setting in different forms (a value, a file holding it, a key file): one of them in
    /// the environment overrides all of them in a configuration file.
    static let settingForms = [
        ["DIARY_DATABASE_URL", "DIARY_DATABASE_URL_FILE"],
        ["DIARY_JWT_SECRET", "DIARY_JWT_SECRET_FILE", "DIARY_JWT_KEYS_FILE"],
    ]

    /// The environment variables the server reads, which are also the keys a configuration file may hold.
    static let environmentKeys: Set<String> = [
        "DIARY_HOSTNAME", "DIARY_PORT", "DIARY_DATA_DIR", "DIARY_JWT_SECRET", "DIARY_JWT_SECRET_FILE", "DIARY_TEST_MODE",
        "DIARY_AUTH_RATE_LIMIT", "DIARY_AUTH_RATE_PERIOD", "DIARY_DATABASE_URL", "DIARY_DATABASE_URL_FILE",
        "DIARY_DATABASE_SCHEMA", "DIARY_DATABASE_MAX_CONNECTIONS", "DIARY_CHANGE_LOG_RETENTION", "DIARY_CHANGE_LOG_ROWS",
        "DIARY_MAINTENANCE_INTERVAL",
        "DIARY_TRUSTED_PROXIES", "DIARY_JWT_KEYS_FILE", "DIARY_LOG_LEVEL", "DIARY_DRAIN_SECONDS", "DIARY_METRICS_PORT",
        "DIARY_METRICS_HOSTNAME",
    ]

    static let usage = """
        usage: DiaryServer [--hostname 127.0.0.1] [--port 8080] [--data-dir PATH | --in-memory] [--jwt-secret SECRET]
                           [--access-token-lifetime SECONDS] [--refresh-grace-period SECONDS]
                           [--auth-rate-limit N] [--auth-rate-period SECONDS] [--test-mode] [--exit-on-stdin-close]
                           [--change-log-retention SECONDS] [--change-log-rows N]
                           [--contract-log PATH] [--config FILE]
        environment: DIARY_HOSTNAME, DIARY_PORT, DIARY_DATA_DIR, DIARY_JWT_SECRET, DIARY_JWT_SECRET_FILE, DIARY_JWT_KEYS_FILE,
                     DIARY_TEST_MODE=1,
                     DIARY_AUTH_RATE_LIMIT, DIARY_AUTH_RATE_PERIOD,
                     DIARY_DATABASE_URL, DIARY_DATABASE_URL_FILE, DIARY_DATABASE_SCHEMA, DIARY_DATABASE_MAX_CONNECTIONS,
                     DIARY_LOG_LEVEL, DIARY_DRAIN_SECONDS, DIARY_METRICS_PORT, DIARY_METRICS_HOSTNAME,
                     DIARY_CHANGE_LOG_RETENTION, DIARY_CHANGE_LOG_ROWS, DIARY_MAINTENANCE_INTERVAL, DIARY_TRUSTED_PROXIES,
                     DIARY_CONFIG_FILE
        --config FILE (or DIARY_CONFIG_FILE) reads a JSON object whose keys are the variables above, for example
        {"DIARY_PORT": 8080, "DIARY_DATABASE_URL_FILE": "/run/secrets/db"}; a variable set in the environment wins
        over the file, and a flag over both for its own setting. An unknown key is an error.
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
        Every DIARY_MAINTENANCE_INTERVAL seconds (default 3600; 0: never) the server deletes PostgreSQL change log rows
        older than DIARY_CHANGE_LOG_RETENTION seconds (--change-log-retention; default 604800, 7 days), and all but the
        newest DIARY_CHANGE_LOG_ROWS (--change-log-rows; default: no limit). A change stream resumes after a position
        (GET /v1/changes, Last-Event-ID) while its rows are kept; the file store and --in-memory keep the last
        DIARY_CHANGE_LOG_ROWS transactions (default 1000) in memory, per process.
        DIARY_TRUSTED_PROXIES=10.0.0.0/8,fd00::/8 names the proxies in front of the server: for a request from one of
        them the client is the last address in X-Forwarded-For that is not itself one of them (rate limits key on it).
        --auth-rate-limit N / --auth-rate-period SECONDS: sign-up, sign-in and email-availability requests per client address
        (a token bucket: N at once, N more per period; 10 per 60 s by default; 0 turns it off); more answer 429.
        On PostgreSQL the buckets and the idempotency records are in the database, shared by every instance.
        --test-mode enables /v1/_test/* (clock, worlds, faults, stats), the `test:<subject>:<email>` identity tokens and
        cheap password hashing. Never use it in production. --port 0 picks a free port (printed at start-up);
        --exit-on-stdin-close stops the server when its parent (a test run) goes away. --contract-log (test mode) appends
        the exchanges of worlds created with `?record=true` to PATH as JSON lines for scripts/validate_contract.py.
        """

    /// Reads flags and environment.
    /// - Throws: `OptionsError` for an unknown flag or a malformed value.
    static func parse(_ arguments: [String], environment processEnvironment: [String: String]) throws -> ServerOptions {
        var options = ServerOptions()
        // The configuration file first: the environment then overrides it, and a flag overrides both for its setting.
        var configPath = processEnvironment["DIARY_CONFIG_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        if let position = arguments.firstIndex(of: "--config") {
            guard position + 1 < arguments.count else { throw OptionsError(message: "--config needs a value") }
            configPath = arguments[position + 1]
        }
        var environment = processEnvironment
        if let configPath {
            options.configFile = URL(fileURLWithPath: configPath)
            var fromFile = try configuration(fromFile: configPath)
            // A setting's forms (`X`, `X_FILE`) are one setting: any of them in the environment overrides all in the file.
            for forms in settingForms where forms.contains(where: { processEnvironment[$0] != nil }) {
                for form in forms { fromFile[form] = nil }
            }
            environment = fromFile.merging(processEnvironment) { _, fromEnvironment in fromEnvironment }
        }
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
        if let value = environment["DIARY_CHANGE_LOG_RETENTION"] {
            options.changeLogRetention = TimeInterval(try integer(value, "DIARY_CHANGE_LOG_RETENTION"))
        }
        if let value = environment["DIARY_CHANGE_LOG_ROWS"], !value.isEmpty {
            options.changeLogRows = try positive(value, "DIARY_CHANGE_LOG_ROWS")
        }
        if let value = environment["DIARY_TRUSTED_PROXIES"] {
            options.trustedProxies = try value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.map { text in
                    guard let block = AddressBlock(text) else {
                        throw OptionsError(message: "DIARY_TRUSTED_PROXIES: an entry is not an address or an address/prefix block")
                    }
                    return block
                }
        }
        if let value = environment["DIARY_MAINTENANCE_INTERVAL"] {
            options.maintenanceInterval = TimeInterval(try integer(value, "DIARY_MAINTENANCE_INTERVAL"))
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
            case "--config": _ = try next(flag)  // read before the environment, above
            case "--access-token-lifetime": options.accessTokenLifetime = TimeInterval(try integer(try next(flag), flag))
            case "--refresh-grace-period": options.refreshGracePeriod = TimeInterval(try integer(try next(flag), flag))
            case "--change-log-retention": options.changeLogRetention = TimeInterval(try integer(try next(flag), flag))
            case "--change-log-rows": options.changeLogRows = try positive(try next(flag), flag)
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

    /// A configuration file: a JSON object from the names of ``environmentKeys`` to strings, numbers or booleans.
    /// - Throws: `OptionsError` naming the file and what is wrong (it never quotes a value: one may be a secret).
    static func configuration(fromFile path: String) throws -> [String: String] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw OptionsError(message: "--config: cannot read \(path)")
        }
        /// A value as the environment would hold it.
        struct Value: Decodable {
            var text: String
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) {
                    self.text = text
                } else if let flag = try? container.decode(Bool.self) {
                    text = flag ? "1" : "0"
                } else {
                    text = String(try container.decode(Int.self))
                }
            }
        }
        let object: [String: Value]
        do {
            object = try JSONDecoder().decode([String: Value].self, from: data)
        } catch {
            throw OptionsError(message: "--config: \(path) is not a JSON object of strings, whole numbers and booleans")
        }
        var values: [String: String] = [:]
        for (key, value) in object {
            guard environmentKeys.contains(key) else {
                throw OptionsError(message: "--config: \(path) has an unknown key \(key); the keys are \(environmentKeys.sorted().joined(separator: ", "))")
            }
            values[key] = value.text
        }
        return values
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

    private static func positive(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), value >= 1 else { throw OptionsError(message: "\(name) must be a whole number of 1 or more") }
        return value
    }

    private static func integer(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), value >= 0 else { throw OptionsError(message: "\(name) must be a whole number of 0 or more") }
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
