@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation

/// Runs the conformance suite on a ``DiaryStorage`` of your own: every check drives a ``DiaryEngine`` over a fresh,
/// empty storage from `makeStorage`, with a manual clock, sequential ids and ``ConformanceIdentityTokenVerifier``.
///
/// ```swift
/// @Test(arguments: ConformanceSuite.checks)
/// func myStorageConforms(_ check: ConformanceCheck) async throws {
///     try await check.run(on: StorageConformanceHarness { try await MyStorage.empty() })
/// }
/// ```
@_spi(Storage)
public struct StorageConformanceHarness: ConformanceHarness {
    private let makeStorage: @Sendable () async throws -> any DiaryStorage
    private let tearDown: @Sendable (any DiaryStorage) async throws -> Void

    /// A harness.
    /// - Parameters:
    ///   - makeStorage: A new, empty storage.
    ///   - tearDown: Releases a storage after its check (closes it, deletes its files or database).
    public init(
        makeStorage: @escaping @Sendable () async throws -> any DiaryStorage,
        tearDown: @escaping @Sendable (any DiaryStorage) async throws -> Void = { _ in }
    ) {
        self.makeStorage = makeStorage
        self.tearDown = tearDown
    }

    /// A world over a new storage.
    public func makeWorld() async throws -> any ConformanceWorld {
        StorageWorld(storage: try await makeStorage(), tearDown: tearDown)
    }
}

private struct StorageWorld: ConformanceWorld {
    let storage: any DiaryStorage
    let tearDown: @Sendable (any DiaryStorage) async throws -> Void
    let clock = ManualClock(ConformanceSuite.epoch)
    let ids = SequentialIDGenerator()

    func makeDevice() async throws -> DiaryRepositories {
        let engine = DiaryEngine(
            storage: storage,
            environment: DiaryEnvironment(clock: clock, ids: ids, defaultTimeZone: TimeZone(identifier: "UTC")!),
            configuration: .init(passwordHashIterations: 1_000, identityTokenVerifier: ConformanceIdentityTokenVerifier()),
            sessionStore: InMemorySessionStore())
        return engine.repositories
    }

    func setNow(_ date: Date) async throws {
        clock.set(date)
    }

    func shutdown() async throws {
        try await tearDown(storage)
    }
}
