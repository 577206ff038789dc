import DiarySDK
import Foundation

extension ConformanceSuite {
    /// Collects changes from a feed after `action`, until `done` says so or ten seconds pass (a bound for liveness:
    /// locally a change arrives at once, but a PostgreSQL store delivers a commit only once every transaction older
    /// than it in the database has ended, which under a loaded test run, with other tests' migrations running, can
    /// take several seconds).
    static func changes(
        of actor: ConformanceUser, during action: @Sendable () async throws -> Void, until done: @escaping @Sendable ([DiaryChange]) -> Bool
    ) async throws -> [DiaryChange] {
        let stream = actor.sdk.changes.changes()
        let collector = Task { () -> [DiaryChange] in
            var seen: [DiaryChange] = []
            for await event in stream {
                guard let change = event.change else { continue }
                seen.append(change)
                if done(seen) { break }
            }
            return seen
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        try await action()
        let timeout = Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            collector.cancel()
        }
        let seen = await collector.value
        timeout.cancel()
        return seen
    }

    /// Whether `actor`'s change stream finishes within ten seconds of `action` (a generous bound: it ends at once
    /// locally, and within a second or two over HTTP).
    static func streamEnds(of actor: ConformanceUser, after action: @Sendable () async throws -> Void) async throws -> Bool {
        let stream = actor.sdk.changes.changes()
        let collector = Task { () -> Bool in
            for await _ in stream {}
            return !Task.isCancelled
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        try await action()
        let timeout = Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            collector.cancel()
        }
        let ended = await collector.value
        timeout.cancel()
        return ended
    }

    static let changeChecks: [ConformanceCheck] = [
        ConformanceCheck("changes", "theStreamEndsWhenItsSessionEnds") { context in
            let alice = try await context.user("alice")
            try expect(try await streamEnds(of: alice) { try await alice.sdk.accounts.signOut() }, "ends at sign-out")
            let bob = try await context.user("bob")
            try expect(try await streamEnds(of: bob) { try await bob.sdk.accounts.withdraw() }, "ends when the account is deleted")
        },
        ConformanceCheck("changes", "aScreenIsToldWhenAPostItCanSeeChanges") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let seen = try await changes(of: alice, during: {
                _ = try await bob.sdk.posts.publish(.init(title: "New", body: "post"))
            }, until: { $0.contains { $0.entity == .post } })
            try expect(seen.contains { $0.entity == .post && $0.kind == .inserted }, "got \(seen)")
        },
        ConformanceCheck("changes", "changesToOthersPrivateEntriesAreNeverDelivered") { context in
            let alice = try await context.user("alice")
            let bob = try await context.user("bob")
            let seen = try await changes(of: alice, during: {
                let secret = try await bob.sdk.diaries.write(.init(body: "Private"))
                _ = try await bob.sdk.diaries.edit(secret.id, .init(body: "Still private"))
                _ = try await bob.sdk.posts.publish(.init(title: "Marker", body: "public"))
            }, until: { $0.contains { $0.entity == .post } })
            try expect(seen.contains { $0.entity == .post }, "the marker arrived: \(seen)")
            try expect(!seen.contains { $0.entity == .diary }, "no diary change leaked: \(seen)")
        },
    ]
}
