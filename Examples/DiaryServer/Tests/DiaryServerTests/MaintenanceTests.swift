@_spi(Storage) import DiaryPostgres
@_spi(Engine) import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// The server's upkeep on PostgreSQL (`DIARY_TEST_DATABASE_URL`; with `CI=true` and no database it fails): change log
/// rows older than the retention go, newer ones and the data stay.
@Suite("Maintenance")
struct MaintenanceTests {
    @Test func changeLogRowsOlderThanTheRetentionAreDeletedAndTheDataStays() async throws {
        guard let databaseURL = ServerSessionStoreTests.databaseURL else {
            #expect(ProcessInfo.processInfo.environment["CI"] != "true", "CI=true but DIARY_TEST_DATABASE_URL is not set")
            return
        }
        let schema = "maint_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let backend = try await DatabaseBackend.postgres(
            url: databaseURL, schema: schema, maximumConnections: 4,
            environment: DiaryEnvironment(clock: SystemClock(), defaultTimeZone: TimeZone(identifier: "UTC")!),
            configuration: DiaryEngine.Configuration(passwordHashIterations: 1_000), logLevel: .critical)
        do {
            let accounts = backend.engine(actingAs: nil)
            for name in ["mara", "ines", "olek"] {
                _ = try await accounts.signUp(SignUpRequest(email: "\(name)@example.com", password: "correct horse battery", nickname: name))
            }
            var options = try ServerOptions.parse(["--in-memory"], environment: [:])
            options.changeLogRetention = 3600

            let sessions = try await backend.makeSessionStore()
            let world = World(id: "main", backend: backend, manualClock: nil,
                              tokens: TokenService(key: ServerSessionStoreTests.key, options: options, sessions: sessions))
            let pair = try await world.tokens.issue(for: User.ID(rawValue: UUID()))

            let now = try await Maintenance.perform(on: world, now: Date(), options: options)
            #expect(now.changeLogRows == 0, "nothing is an hour old yet")
            #expect(now.sessions == 0)
            _ = try await world.tokens.verifyAccess(pair.accessToken)

            let later = try await Maintenance.perform(on: world, now: Date().addingTimeInterval(7200), options: options)
            #expect(later.changeLogRows >= 3, "each sign-up wrote at least one change log row")
            #expect(later.sessions == 0, "a refresh token lives 30 days")
            let again = try await Maintenance.perform(on: world, now: Date().addingTimeInterval(7200), options: options)
            #expect(again.changeLogRows == 0)

            // A row limit on top of the time: of three new rows, the newest stays.
            for name in ["pavo", "rhea", "sion"] {
                _ = try await accounts.signUp(SignUpRequest(email: "\(name)@example.com", password: "correct horse battery", nickname: name))
            }
            var bounded = options
            bounded.changeLogRows = 1
            let byRows = try await Maintenance.perform(on: world, now: Date(), options: bounded)
            #expect(byRows.changeLogRows >= 2, "all but the newest row go")
            #expect(try await Maintenance.perform(on: world, now: Date(), options: bounded).changeLogRows == 0)

            let expired = try await Maintenance.perform(
                on: world, now: Date().addingTimeInterval(options.refreshTokenLifetime + 60), options: options)
            #expect(expired.sessions == 1, "the session's refresh token has expired")
            await #expect(throws: DiaryError.self) { try await world.tokens.verifyAccess(pair.accessToken) }

            // The accounts themselves are untouched: each still signs in.
            for name in ["mara", "ines", "olek"] {
                _ = try await accounts.signIn(.password(email: "\(name)@example.com", password: "correct horse battery"))
            }
        } catch {
            await backend.close(deletingData: true)
            throw error
        }
        await backend.close(deletingData: true)
    }

    @Test func aStoreWithoutAChangeLogOrSessionsHasNothingToTrim() async throws {
        let backend = try await makeStorage(
            options: ServerOptions.parse(["--in-memory"], environment: [:]), world: "main", clock: nil,
            engine: DiaryEngine.Configuration())
        let options = try ServerOptions.parse(["--in-memory"], environment: [:])
        let world = World(id: "main", backend: backend.backend, manualClock: nil,
                          tokens: TokenService(key: ServerSessionStoreTests.key, options: options, sessions: backend.sessions))
        let report = try await Maintenance.perform(on: world, now: Date.distantFuture, options: options)
        #expect(report == Maintenance.Report())
    }
}
