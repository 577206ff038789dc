import Foundation

/// The server's settings, from command-line flags first and environment variables second.
struct ServerOptions: Sendable {
    var hostname = "127.0.0.1"
    var port = 8080
    var dataDirectory: URL?
    var inMemory = false
    var testMode = false
    var jwtSecret: String?
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

    static let usage = """
        usage: DiaryServer [--hostname 127.0.0.1] [--port 8080] [--data-dir PATH | --in-memory] [--jwt-secret SECRET]
                           [--access-token-lifetime SECONDS] [--refresh-grace-period SECONDS]
                           [--auth-rate-limit N] [--auth-rate-period SECONDS] [--test-mode] [--exit-on-stdin-close]
                           [--contract-log PATH]
        environment: DIARY_HOSTNAME, DIARY_PORT, DIARY_DATA_DIR, DIARY_JWT_SECRET, DIARY_TEST_MODE=1,
                     DIARY_AUTH_RATE_LIMIT, DIARY_AUTH_RATE_PERIOD
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
        if environment["DIARY_TEST_MODE"] == "1" { options.testMode = true }
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
            case "--jwt-secret": options.jwtSecret = try next(flag)
            case "--contract-log": options.contractLog = URL(fileURLWithPath: try next(flag))
            case "--access-token-lifetime": options.accessTokenLifetime = TimeInterval(try integer(try next(flag), flag))
            case "--refresh-grace-period": options.refreshGracePeriod = TimeInterval(try integer(try next(flag), flag))
            case "--auth-rate-limit": options.authRateLimit = try integer(try next(flag), flag)
            case "--auth-rate-period": options.authRatePeriod = TimeInterval(try integer(try next(flag), flag))
            case "--help", "-h": throw OptionsError(message: usage)
            default: throw OptionsError(message: "unknown option \(flag)\n\(usage)")
            }
            index += 1
        }
        if options.testMode { options.passwordHashIterations = 100 }
        if options.contractLog != nil && !options.testMode {
            throw OptionsError(message: "--contract-log needs --test-mode\n\(usage)")
        }
        if options.dataDirectory == nil && !options.inMemory {
            throw OptionsError(message: "give --data-dir PATH (or DIARY_DATA_DIR), or --in-memory\n\(usage)")
        }
        return options
    }

    private static func integer(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), value >= 0 else { throw OptionsError(message: "\(name) must be a number, got '\(text)'") }
        return value
    }
}

/// A bad command line.
struct OptionsError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
