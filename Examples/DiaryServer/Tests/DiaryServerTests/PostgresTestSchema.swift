@_spi(Engine) import DiarySDK
import Foundation

@testable import DiaryServer

/// One fresh PostgreSQL schema (`DIARY_TEST_DATABASE_URL`) opened by several backends, as several server instances
/// on one database open it; the schema is dropped when the test ends.
struct PostgresTestSchema: Sendable {
    static let databaseURL = ProcessInfo.processInfo.environment["DIARY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    /// Whether the PostgreSQL suites run: with a database, or under CI, where a missing one must fail them.
    static let enabled = databaseURL != nil || ProcessInfo.processInfo.environment["CI"] == "true"

    /// The backends, one per instance, each with a pool of its own.
    let instances: [DatabaseBackend]

    /// Runs `body` on `count` backends of a new schema, then drops the schema and closes them (whether `body` threw
    /// or not).
    static func with(
        instances count: Int, prefix: String, _ body: (PostgresTestSchema) async throws -> Void
    ) async throws {
        guard let databaseURL else {
            throw ServerSessionStoreError(code: .io, message: "CI=true but DIARY_TEST_DATABASE_URL is not set")
        }
        let schema = prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var instances: [DatabaseBackend] = []
        let close = { @Sendable (instances: [DatabaseBackend]) async in
            for (index, instance) in instances.enumerated().reversed() {
                await instance.close(deletingData: index == 0)
            }
        }
        do {
            for _ in 0..<count {
                instances.append(
                    try await DatabaseBackend.postgres(
                        url: databaseURL, schema: schema, maximumConnections: 4,
                        environment: DiaryEnvironment(clock: SystemClock(), defaultTimeZone: TimeZone(identifier: "UTC")!),
                        configuration: DiaryEngine.Configuration(), logLevel: .critical))
            }
            try await body(PostgresTestSchema(instances: instances))
        } catch {
            await close(instances)
            throw error
        }
        await close(instances)
    }
}
