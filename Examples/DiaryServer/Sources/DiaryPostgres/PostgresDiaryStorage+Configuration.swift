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
        /// The most committed transactions a ``PostgresDiaryStorage/committedChanges(after:)`` stream holds for a
        /// reader that has not taken them; a stream that would hold more ends instead, and its reader resumes after
        /// the last position it took, from the table (nothing is skipped, and memory per stream stays bounded).
        public var changeStreamBacklog: Int
        /// How long ``PostgresDiaryStorage/connect(configuration:logger:)`` waits for the database before it gives
        /// up with ``DiaryError/Code/unavailable`` (the pool itself retries connecting for longer).
        public var startupTimeout: Duration
        /// Run-time parameters every connection of the pool starts with (sent in PostgreSQL's startup message), on
        /// top of ``client``'s own `options.additionalStartupParameters`, which win for a parameter both name.
        ///
        /// By default (``defaultSessionParameters``) the store's statements keep one plan each per connection:
        /// - `plan_cache_mode = force_generic_plan`: a statement with bound values, prepared or not, is planned
        ///   without them, and a prepared one keeps that plan until its tables' statistics change (`ANALYZE`). Left to choose, PostgreSQL planned an author's page at 1,000,000 posts
        ///   for its values at every call (its generic plan, parallel for a `LIMIT` it could not see, cost more on
        ///   paper), which was 40 % of the statement's time and made its p99 grow with the data
        ///   (docs/PERFORMANCE.md). A statement whose best plan does depend on its values (a search) writes them
        ///   into its text and is planned for them each time.
        /// - `max_parallel_workers_per_gather = 0`: no parallel plans. A page reads tens of rows; with the pool's
        ///   connections already sharing the machine's cores, a parallel worker only adds start-up cost and moves
        ///   the plan a page gets.
        /// - `jit = off`: no JIT compilation. PostgreSQL compiles a statement whose plan costs more than
        ///   `jit_above_cost`, and a page's generic plan, costed for a tenth of a listing, does at 1,000,000 posts:
        ///   7 ms of compiling for a 0.1 ms read, at every run (measured with `EXPLAIN ANALYZE`).
        ///
        /// Each connection also says `client_encoding=UTF8`, whatever this holds: a search writes its words into its
        /// SQL as UTF-8 literals (``SQLLiteral``).
        ///
        /// PgBouncer refuses startup parameters it does not know: list these in its `ignore_startup_parameters` and
        /// set them on the database instead (`ALTER DATABASE … SET plan_cache_mode = force_generic_plan`, …), so every
        /// connection still gets them (docs/Deploying.md).
        public var sessionParameters: [(String, String)]

        /// The parameters the store's connections start with unless told otherwise: generic plans, no parallel
        /// query, no JIT (``sessionParameters``).
        public static let defaultSessionParameters: [(String, String)] = [
            ("plan_cache_mode", "force_generic_plan"),
            ("max_parallel_workers_per_gather", "0"),
            ("jit", "off"),
        ]

        /// A configuration.
        /// - Parameters:
        ///   - client: The connection pool's configuration.
        ///   - schema: The schema for the store's tables.
        ///   - writeAttempts: How many times a write is tried in all (at least 1).
        ///   - changePollInterval: How often to read the change log.
        ///   - startupTimeout: How long connecting may take.
        ///   - changeStreamBacklog: The most transactions a change stream holds for its reader (at least 1).
        ///   - sessionParameters: Run-time parameters each connection starts with.
        public init(
            client: PostgresClient.Configuration, schema: String = "diary", writeAttempts: Int = 25,
            changePollInterval: Duration = .milliseconds(250), startupTimeout: Duration = .seconds(30),
            sessionParameters: [(String, String)] = Configuration.defaultSessionParameters,
            changeStreamBacklog: Int = 1_024
        ) {
            self.changeStreamBacklog = max(1, changeStreamBacklog)
            self.client = client
            self.schema = schema
            self.writeAttempts = max(1, writeAttempts)
            self.changePollInterval = changePollInterval
            self.startupTimeout = startupTimeout
            self.sessionParameters = sessionParameters
        }

        /// ``client`` with ``sessionParameters`` added to its startup parameters (those it names itself stay; names
        /// compared as PostgreSQL does, ignoring case), and `client_encoding=UTF8` in place of any other.
        var clientWithSessionParameters: PostgresClient.Configuration {
            var client = self.client
            var parameters = client.options.additionalStartupParameters.filter { $0.0.lowercased() != "client_encoding" }
            let named = Set(parameters.map { $0.0.lowercased() })
            parameters += sessionParameters.filter { !named.contains($0.0.lowercased()) && $0.0.lowercased() != "client_encoding" }
            parameters.append(("client_encoding", "UTF8"))
            client.options.additionalStartupParameters = parameters
            return client
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
