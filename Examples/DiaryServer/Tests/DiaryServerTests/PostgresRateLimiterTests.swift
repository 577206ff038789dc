@_spi(Storage) import DiaryPostgres
import DiarySDK
import Foundation
import Testing

@testable import DiaryServer

/// The sign-in rate limiter on PostgreSQL: one bucket per client shared by two instances on one schema, its refill
/// and wait, concurrent takes, and the sweep of idle buckets. Runs with `DIARY_TEST_DATABASE_URL`; with `CI=true`
/// and no database it fails.
@Suite("PostgreSQL rate limiter", .enabled(if: PostgresTestSchema.enabled))
struct PostgresRateLimiterTests {
    typealias Clock = IdempotencyStoreTests.Clock

    static func limiter(
        _ backend: DatabaseBackend, capacity: Int, period: TimeInterval, clock: Clock,
        configuration: PostgresRateLimiter.Configuration = .init()
    ) async throws -> PostgresRateLimiter {
        let storage = try #require(backend.storage as? PostgresDiaryStorage)
        return try await PostgresRateLimiter(
            storage: storage, capacity: capacity, period: period, configuration: configuration, now: { clock.now })
    }

    @Test func theMainWorldOnPostgresKeepsItsBucketsInTheDatabase() async throws {
        try await PostgresTestSchema.with(instances: 1, prefix: "rate") { schema in
            let limiter = try await schema.instances[0].makeRateLimiter(capacity: 1, period: 1)
            #expect(limiter is PostgresRateLimiter)
        }
    }

    @Test func twoInstancesShareOneBucketPerClientAndItRefills() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "rate") { schema in
            let clock = Clock()
            let one = try await Self.limiter(schema.instances[0], capacity: 3, period: 60, clock: clock)
            let two = try await Self.limiter(schema.instances[1], capacity: 3, period: 60, clock: clock)
            #expect(try await one.take(from: "a") == nil)
            #expect(try await two.take(from: "a") == nil)
            #expect(try await one.take(from: "a") == nil)
            let wait = try #require(try await two.take(from: "a"), "the fourth request, on either instance, is refused")
            #expect(abs(wait - 20) < 0.01, "one request comes back every 60 / 3 s")
            #expect(try await one.take(from: "a") != nil)
            #expect(try await one.take(from: "b") == nil, "another client has a bucket of its own")
            clock.advance(10)
            let half = try #require(try await one.take(from: "a"))
            #expect(abs(half - 10) < 0.01)
            clock.advance(10)
            #expect(try await two.take(from: "a") == nil, "the bucket refilled one request")
            #expect(try await one.take(from: "a") != nil)
            clock.advance(600)
            for _ in 0..<3 { #expect(try await two.take(from: "a") == nil, "a bucket refills to its capacity, no more") }
            #expect(try await two.take(from: "a") != nil)
        }
    }

    @Test func aRefusedClientIsRefusedFromMemoryUntilItsWaitIsOver() async throws {
        try await PostgresTestSchema.with(instances: 1, prefix: "rate") { schema in
            let clock = Clock()
            let limiter = try await Self.limiter(
                schema.instances[0], capacity: 1, period: 60, clock: clock,
                configuration: .init(maximumRefusedClients: 2))
            #expect(try await limiter.take(from: "a") == nil)
            #expect(try await limiter.take(from: "a") != nil)
            // The bucket goes from the database behind the limiter's back: only a take that asks it would be granted.
            #expect(try await limiter.table.removeIdle(since: clock.now.addingTimeInterval(3_600), limit: 10) == 1)
            let wait = try #require(try await limiter.take(from: "a"), "refused from memory, without asking the database")
            #expect(abs(wait - 60) < 0.01)
            clock.advance(60)
            #expect(try await limiter.take(from: "a") == nil, "after the wait the database answers again")
            // The memory is bounded: refusals of more clients than it holds replace the expired ones.
            for client in ["b", "c", "d"] {
                #expect(try await limiter.take(from: client) == nil)
                #expect(try await limiter.take(from: client) != nil)
            }
            #expect(limiter.refusedClients <= 2)
        }
    }

    @Test func concurrentTakesOnTwoInstancesGrantExactlyTheCapacity() async throws {
        try await PostgresTestSchema.with(instances: 2, prefix: "rate") { schema in
            let clock = Clock()
            let one = try await Self.limiter(schema.instances[0], capacity: 5, period: 3_600, clock: clock)
            let two = try await Self.limiter(schema.instances[1], capacity: 5, period: 3_600, clock: clock)
            let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<24 {
                    let limiter = index.isMultiple(of: 2) ? one : two
                    group.addTask { try await limiter.take(from: "c") == nil }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(granted == 5)
        }
    }

    @Test func aCapacityOfZeroLetsEverythingThroughWithoutARow() async throws {
        try await PostgresTestSchema.with(instances: 1, prefix: "rate") { schema in
            let limiter = try await Self.limiter(schema.instances[0], capacity: 0, period: 60, clock: Clock())
            for _ in 0..<10 { #expect(try await limiter.take(from: "a") == nil) }
            #expect(try await limiter.table.count() == 0)
        }
    }

    @Test func idleBucketsAreSweptWithBoundedWork() async throws {
        try await PostgresTestSchema.with(instances: 1, prefix: "rate") { schema in
            let clock = Clock()
            var configuration = PostgresRateLimiter.Configuration()
            configuration.sweepInterval = 5
            configuration.sweepLimit = 2
            let limiter = try await Self.limiter(
                schema.instances[0], capacity: 2, period: 60, clock: clock, configuration: configuration)
            for client in ["a", "b", "c", "d"] { #expect(try await limiter.take(from: client) == nil) }
            #expect(try await limiter.table.count() == 4)
            clock.advance(61)
            #expect(try await limiter.take(from: "e") == nil, "the fifth take sweeps")
            #expect(try await limiter.table.count() == 3, "two idle buckets went, the new one came")
            #expect(try await limiter.removeIdle(at: clock.now) == 2)
            #expect(try await limiter.table.count() == 1)
            clock.advance(30)
            #expect(try await limiter.removeIdle(at: clock.now) == 0, "a bucket used within the period stays")
        }
    }
}
