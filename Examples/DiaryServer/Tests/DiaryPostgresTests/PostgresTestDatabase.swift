@_spi(Storage) import DiaryPostgres
@_spi(Storage) import DiarySDK
import Foundation
import Logging
import Testing

/// The database the tests run on: `DIARY_TEST_DATABASE_URL` (`eval "$(scripts/postgres.sh start)"` sets it).
///
/// Without it the tests are skipped, except when `CI=true`: then they run and fail, so CI cannot pass by skipping.
enum PostgresTestDatabase {
    static let url = ProcessInfo.processInfo.environment["DIARY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Whether the tests run: there is a database, or CI wants to hear that there is none.
    static let shouldRun = url != nil || isCI

    /// Quiet: a store whose schema another store dropped logs its failed polls until it shuts down.
    static let logger: Logger = {
        var logger = Logger(label: "diary.postgres.tests")
        logger.logLevel = .critical
        return logger
    }()

    /// A schema name no other test uses.
    static func freshSchema() -> String {
        "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// A configuration for a schema, with a small pool (many tests run at once).
    static func configuration(schema: String) throws -> PostgresDiaryStorage.Configuration {
        guard let url else {
            throw DiaryError(.unavailable, "CI=true but DIARY_TEST_DATABASE_URL is not set: the PostgreSQL tests cannot run")
        }
        var configuration = try PostgresDiaryStorage.Configuration(url: url, schema: schema)
        configuration.client.options.maximumConnections = 4
        configuration.changePollInterval = .milliseconds(100)
        return configuration
    }

    /// Connections the tests may hold at once (Swift Testing starts every conformance check at once): 60, under a
    /// stock server's `max_connections` of 100, or `DIARY_TEST_MAX_CONNECTIONS`.
    static let connections = ConnectionBudget(
        total: ProcessInfo.processInfo.environment["DIARY_TEST_MAX_CONNECTIONS"].flatMap { Int($0) } ?? 60)

    /// A store on a schema (a fresh one unless named), counted against ``connections`` until ``release(_:)``.
    static func connect(schema: String = freshSchema(), maximumConnections: Int? = nil) async throws -> PostgresDiaryStorage {
        var configuration = try configuration(schema: schema)
        if let maximumConnections { configuration.client.options.maximumConnections = maximumConnections }
        let pool = configuration.client.options.maximumConnections
        await connections.acquire(pool)
        do {
            let storage = try await PostgresDiaryStorage.connect(configuration: configuration, logger: logger)
            await connections.remember(ObjectIdentifier(storage), pool)
            return storage
        } catch {
            await connections.release(pool)
            throw error
        }
    }

    /// Shuts a store down and returns its connections to the budget.
    static func release(_ storage: PostgresDiaryStorage) async {
        await storage.shutdown()
        await connections.release(storage: ObjectIdentifier(storage))
    }

    /// Runs `body` on a store with a fresh schema, then drops the schema and shuts the store down.
    static func withStorage<Result>(
        maximumConnections: Int? = nil, _ body: (PostgresDiaryStorage) async throws -> Result
    ) async throws -> Result {
        let storage = try await connect(maximumConnections: maximumConnections)
        do {
            let result = try await body(storage)
            try await storage.dropSchema()
            await release(storage)
            return result
        } catch {
            try? await storage.dropSchema()
            await release(storage)
            throw error
        }
    }
}

/// A counting semaphore of database connections, so the tests' pools never exceed the server's limit.
actor ConnectionBudget {
    private var available: Int
    private var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var held: [ObjectIdentifier: Int] = [:]

    init(total: Int) {
        available = total
    }

    /// Waits until `count` connections are free and takes them.
    func acquire(_ count: Int) async {
        if waiting.isEmpty, available >= count {
            available -= count
            return
        }
        await withCheckedContinuation { waiting.append((count, $0)) }
    }

    /// Notes which store holds connections taken with ``acquire(_:)``.
    func remember(_ storage: ObjectIdentifier, _ count: Int) {
        held[storage] = count
    }

    /// Returns a store's connections.
    func release(storage: ObjectIdentifier) {
        if let count = held.removeValue(forKey: storage) { release(count) }
    }

    /// Returns connections and wakes whoever now fits, in order.
    func release(_ count: Int) {
        available += count
        while let first = waiting.first, first.count <= available {
            waiting.removeFirst()
            available -= first.count
            first.continuation.resume()
        }
    }
}

/// Rows for the tests, with fixed times and sequential ids.
enum Rows {
    static let epoch = Date(timeIntervalSince1970: 1_780_000_000)

    static func id<Entity>(_ number: Int) -> EntityID<Entity> {
        EntityID(rawValue: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number))!)
    }

    static func user(_ number: Int, nickname: String? = nil) -> StoreRecord {
        .user(User(id: id(number), nickname: nickname ?? "user\(number)", createdAt: epoch.addingTimeInterval(Double(number))))
    }

    static func post(
        _ number: Int, author: Int = 1, title: String = "", body: String = "", tags: [String] = [], anonymous: Bool = false
    ) -> PostRecord {
        PostRecord(
            id: id(number), authorID: id(author), isAnonymous: anonymous, title: title, body: body, tags: tags, images: [],
            source: .original, day: LocalDate(epoch, in: TimeZone(identifier: "UTC")!),
            createdAt: epoch.addingTimeInterval(Double(number)), updatedAt: epoch.addingTimeInterval(Double(number)))
    }

    static func like(user: Int, post: Int) -> StoreRecord {
        .like(LikeRecord(userID: id(user), postID: id(post), createdAt: epoch.addingTimeInterval(Double(user))))
    }
}
