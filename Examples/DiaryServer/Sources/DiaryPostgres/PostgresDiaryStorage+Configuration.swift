@_spi(Storage) import DiarySDK
import Foundation
import PostgresNIO

@_spi(Storage)
extension PostgresDiaryStorage {
    /// Where the store connects and how it behaves.
    public struct Configuration: Sendable {
        /// The database server, credentials and database, as postgres-nio takes them.
        public var client: PostgresClient.Configuration
        /// The schema holding the store's tables, created if missing: lowercase letters, digits and `_`.
        public var schema: String
        /// How many times a write runs again after a serialisation failure or deadlock before it gives up with
        /// ``DiaryError/Code/unavailable``.
        public var writeAttempts: Int
        /// How often the change feed looks for writes of other processes.
        public var changePollInterval: Duration
        /// How long ``PostgresDiaryStorage/connect(configuration:logger:)`` waits for the database before it gives
        /// up with ``DiaryError/Code/unavailable`` (the pool itself retries connecting for longer).
        public var startupTimeout: Duration

        /// A configuration.
        /// - Parameters:
        ///   - client: The connection pool's configuration.
        ///   - schema: The schema for the store's tables.
        ///   - writeAttempts: How many times a write is tried in all (at least 1).
        ///   - changePollInterval: How often to read the change log.
        ///   - startupTimeout: How long connecting may take.
        public init(
            client: PostgresClient.Configuration, schema: String = "diary", writeAttempts: Int = 25,
            changePollInterval: Duration = .milliseconds(250), startupTimeout: Duration = .seconds(30)
        ) {
            self.client = client
            self.schema = schema
            self.writeAttempts = max(1, writeAttempts)
            self.changePollInterval = changePollInterval
            self.startupTimeout = startupTimeout
        }

        /// A configuration from a URL, `postgres://user[:password]@host[:port]/database[?sslmode=…]`.
        ///
        /// `sslmode` is `disable`, `prefer` or `require` (default: `disable` for a loopback host, `prefer` otherwise);
        /// `require` verifies the server's certificate with the system's trust roots.
        /// - Parameters:
        ///   - url: The database URL.
        ///   - schema: The schema for the store's tables.
        /// - Throws: ``DiaryError/Code/invalidInput`` on `url` when it is not such a URL (the message never repeats
        ///   the URL, which may hold a password).
        public init(url: String, schema: String = "diary") throws {
            func invalid(_ what: String) -> DiaryError {
                DiaryError.invalid("url", .invalidFormat, "the database URL \(what)")
            }
            guard let components = URLComponents(string: url), let scheme = components.scheme,
                scheme == "postgres" || scheme == "postgresql"
            else { throw invalid("is not a postgres:// URL") }
            guard let host = components.host, !host.isEmpty else { throw invalid("names no host") }
            guard let username = components.user, !username.isEmpty else { throw invalid("names no user") }
            let database = String(components.path.drop(while: { $0 == "/" }))
            guard !database.isEmpty else { throw invalid("names no database") }
            let isLoopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
            let tls: PostgresClient.Configuration.TLS
            switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? (isLoopback ? "disable" : "prefer") {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            default: throw invalid("has an sslmode that is not disable, prefer or require")
            }
            self.init(
                client: PostgresClient.Configuration(
                    host: host, port: components.port ?? 5432, username: username.removingPercentEncoding ?? username,
                    password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database, tls: tls),
                schema: schema)
        }
    }
}
