import Foundation
import NIOCore
import Testing

@testable import DiaryServer

/// The sign-in rate limiter on its own: the bucket, its refill, and its bounds.
@Suite("Rate limiter")
struct RateLimiterTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aClientGetsItsBurstThenWaitsForTheRefill() {
        let limiter = RateLimiter(capacity: 3, period: 60)
        for _ in 0..<3 { #expect(limiter.take("a", now: start) == nil) }
        let wait = limiter.take("a", now: start)
        #expect(wait.map { abs($0 - 20) < 0.001 } == true, "one request comes back every 20 s: \(String(describing: wait))")
        #expect(limiter.take("b", now: start) == nil, "another client has a bucket of its own")
        #expect(limiter.take("a", now: start.addingTimeInterval(20)) == nil)
    }

    @Test func aClockThatGoesBackwardsNeverDrainsOrOverfillsABucket() {
        let limiter = RateLimiter(capacity: 2, period: 60)
        #expect(limiter.take("a", now: start) == nil)
        #expect(limiter.take("a", now: start.addingTimeInterval(-3_600)) == nil)
        #expect(limiter.take("a", now: start.addingTimeInterval(-3_600)) != nil)
    }

    @Test func refilledBucketsAreSweptSoTheTableStaysSmall() {
        let limiter = RateLimiter(capacity: 2, period: 1, maximumClients: 100_000)
        for index in 0..<50_000 {
            // Each client comes once; a second later its bucket is full again and worth nothing.
            _ = limiter.take("client-\(index)", now: start.addingTimeInterval(Double(index)))
        }
        #expect(limiter.clientCount <= 2_048, "held \(limiter.clientCount) buckets")
    }

    @Test func clientsPastTheBoundShareOneBucketInsteadOfGrowingTheTable() {
        let limiter = RateLimiter(capacity: 1, period: 3_600, maximumClients: 100)
        for index in 0..<100 { #expect(limiter.take("client-\(index)", now: start) == nil) }
        #expect(limiter.take("newcomer-1", now: start) == nil, "the shared bucket has one request")
        #expect(limiter.take("newcomer-2", now: start) != nil, "and it is spent")
        #expect(limiter.clientCount == 101)
        #expect(limiter.take("client-7", now: start) != nil, "known clients keep their own bucket")
    }
}

/// Which client a request's address counts as.
@Suite("Rate limit client keys")
struct AuthRateLimitKeyTests {
    @Test func ipv4AddressesAreKeyedWhole() throws {
        let one = try SocketAddress(ipAddress: "192.0.2.1", port: 1000)
        let two = try SocketAddress(ipAddress: "192.0.2.2", port: 1000)
        #expect(AuthRateLimit.clientKey(one) != AuthRateLimit.clientKey(two))
        #expect(AuthRateLimit.clientKey(one) == AuthRateLimit.clientKey(try SocketAddress(ipAddress: "192.0.2.1", port: 9)))
    }

    @Test func ipv6AddressesAreKeyedByTheirSlash64() throws {
        let one = try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1000)
        let sameNetwork = try SocketAddress(ipAddress: "2001:db8:1:2:ffff:ffff:ffff:ffff", port: 1000)
        let otherNetwork = try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1000)
        #expect(AuthRateLimit.clientKey(one) == AuthRateLimit.clientKey(sameNetwork))
        #expect(AuthRateLimit.clientKey(one) != AuthRateLimit.clientKey(otherNetwork))
        #expect(AuthRateLimit.clientKey(try SocketAddress(ipAddress: "::1", port: 1)) == "::1")
    }
}
