@_spi(Storage) import DiaryPostgres
@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation
import Logging

/// A world on any ``DiaryStorage`` the server holds itself, such as PostgreSQL: the SDK's engine over the storage,
/// with the same clock, time zone and engine configuration the local backends pass.
final class DatabaseBackend: StorageBackend {
    let storage: any DiaryStorage
    let environment: DiaryEnvironment
    let configuration: DiaryEngine.Configuration
    private let closing: @Sendable (Bool) async -> Void

    init(
        storage: any DiaryStorage, environment: DiaryEnvironment, configuration: DiaryEngine.Configuration,
        close: @escaping @Sendable (Bool) async -> Void
    ) {
        self.storage = storage
        self.environment = environment
        self.configuration = configuration
        self.closing = close
    }

    func engine(actingAs userID: User.ID?) -> DiaryEngine {
        DiaryEngine(storage: storage, environment: environment, configuration: configuration, actingAs: userID)
    }

    /// Reads one row by key (a user no one has): the database answers and the schema's tables exist.
    func checkReady() async throws {
        _ = try await storage.read("server.ready") { reader in
            try await reader.record(.user(User.ID(rawValue: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!)))
        }
    }

    func close(deletingData: Bool) async {
        await closing(deletingData)
    }

    /// The sessions store beside the data: a table in the schema on PostgreSQL, else memory.
    func makeSessionStore() async throws -> any ServerSessionStore {
        guard let postgres = storage as? PostgresDiaryStorage else { return InMemoryServerSessionStore() }
        return try await PostgresServerSessionStore(storage: postgres)
    }

    /// The idempotency records beside the data: a table in the schema on PostgreSQL, else memory.
    func makeIdempotencyRecords() async throws -> any IdempotencyRecords {
        guard let postgres = storage as? PostgresDiaryStorage else { return IdempotencyStore() }
        return try await PostgresIdempotencyRecords(storage: postgres)
    }

    /// The sign-in rate limiter beside the data: a table in the schema on PostgreSQL, else memory.
    func makeRateLimiter(capacity: Int, period: TimeInterval) async throws -> any ClientRateLimiter {
        guard let postgres = storage as? PostgresDiaryStorage else { return RateLimiter(capacity: capacity, period: period) }
        return try await PostgresRateLimiter(storage: postgres, capacity: capacity, period: period)
    }

    /// A world on PostgreSQL: connects, and creates or upgrades the schema, before it answers anything.
    static func postgres(
        url: String, schema: String, maximumConnections: Int, environment: DiaryEnvironment,
        configuration: DiaryEngine.Configuration, logLevel: Logger.Level = .warning
    ) async throws -> DatabaseBackend {
        var storeConfiguration = try PostgresDiaryStorage.Configuration(url: url, schema: schema)
        storeConfiguration.client.options.maximumConnections = maximumConnections
        var logger = Logger(label: "diary.postgres")
        logger.logLevel = logLevel
        let storage = try await PostgresDiaryStorage.connect(configuration: storeConfiguration, logger: logger)
        return DatabaseBackend(
            storage: storage, environment: environment, configuration: configuration,
            close: { deletingData in
                if deletingData { try? await storage.dropSchema() }
                await storage.shutdown()
            })
    }
}
