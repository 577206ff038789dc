// The examples in the doc comments of DiaryPostgres (Examples/DiaryServer/Sources/DiaryPostgres), compiled against
// the module they show; the SDK's Examples/Tests/DocSnippetTests checks that each block is the shown part of one of
// these, and the tests at the end run them on a fresh schema.
@_spi(Storage) @testable import DiaryPostgres
@_spi(Engine) @_spi(Storage) import DiarySDK
import Foundation
import Testing

// snippet.begin: Examples/DiaryServer/Sources/DiaryPostgres/SQLStatementLog.swift
func sqlStatementLogExample(storage: PostgresDiaryStorage, id: User.ID) async throws -> [SQLStatement] {
    // snippet.show
    let log = SQLStatementLog()
    try await SQLStatementLog.$current.withValue(log) { _ = try await storage.read("x") { try await $0.user(id) } }
    let reads = log.statements   // the SELECT by key, with its binding
    // snippet.hide
    return reads
}

// snippet.begin: Examples/DiaryServer/Sources/DiaryPostgres/PostgresDocumentTable.swift
func documentTableExample(
    storage: PostgresDiaryStorage, sid: String, userID: String, json: String, newJSON: String
) async throws -> Bool {
    // snippet.show
    let sessions = try await storage.documentTable(named: "server_sessions")
    try await sessions.insert(id: sid, owner: userID, state: json)
    let changed = try await sessions.update(id: sid) { state in (.save(newJSON), true) }   // row locked meanwhile
    // snippet.hide
    return changed
}

// snippet.begin: Examples/DiaryServer/Sources/DiaryPostgres/PostgresDocumentCheck.swift
func documentCheckExample(
    sessions: PostgresDocumentTable, sid: String, userID: String, jti: String, engine: DiaryEngine
) async throws -> Page<Post> {
    // snippet.show
    let check = PostgresDocumentCheck(table: sessions, id: sid, arrayMember: "expired", element: jti) { found in
        guard let found, found.owner == userID, !found.holds else {
            throw DiaryError(.unauthenticated, "the session has ended")
        }
    }
    let feed = try await PostgresDocumentCheck.$pending.withValue(check) {
        try await engine.repositories.posts.feed(page: .first())
    }
    try await check.settle()   // a no-op when a transaction already read it
    // snippet.hide
    return feed
}

// snippet.begin: Examples/DiaryServer/Sources/DiaryPostgres/PostgresIdempotencyTable.swift
func idempotencyTableExample(
    storage: PostgresDiaryStorage, key: String, fp: String, response: PostgresIdempotencyTable.Response,
    now: Date, dayAgo: Date, minuteAgo: Date, replay: (PostgresIdempotencyTable.Response) -> Void
) async throws {
    // snippet.show
    let records = try await storage.idempotencyTable(named: "idempotency_records")
    let claim = UUID()
    if try await records.claim(key: key, fingerprint: fp, claim: claim, now: now, expiredAtOrBefore: dayAgo, staleBefore: minuteAgo) {
        try await records.complete(key: key, claim: claim, response: response, now: Date())   // or release(key:claim:)
    } else if case .complete(fp, let stored)? = try await records.record(key: key, createdAfter: dayAgo) {
        replay(stored)
    }
    // snippet.hide
}

// snippet.begin: Examples/DiaryServer/Sources/DiaryPostgres/PostgresRateLimitTable.swift
func rateLimitTableExample(storage: PostgresDiaryStorage) async throws {
    // snippet.show
    let buckets = try await storage.rateLimitTable(named: "auth_rate_limits")
    if let wait = try await buckets.take(key: "192.0.2.1", capacity: 10, period: 60, now: Date()) {
        throw DiaryError(.rateLimited, "too many attempts", retryAfter: wait)
    }
    // snippet.hide
}

/// The examples of DiaryPostgres's doc comments, run: each does what its comment says.
@Suite("Doc comment examples of the PostgreSQL store", .enabled(if: PostgresTestDatabase.shouldRun))
struct PostgresDocCommentExampleTests {
    @Test func theStatementLogHoldsTheReadsSelect() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let reads = try await sqlStatementLogExample(storage: storage, id: Rows.id(1))
            #expect(reads.count == 1)
            #expect(reads.first?.sql.hasPrefix("SELECT") == true, "\(reads.map(\.sql))")
        }
    }

    @Test func aDocumentIsInsertedThenUpdatedUnderItsLock() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let changed = try await documentTableExample(
                storage: storage, sid: "s1", userID: "alice", json: #"{"expired": []}"#, newJSON: #"{"expired": ["a1"]}"#)
            #expect(changed)
            let state = try await storage.documentTable(named: "server_sessions").state(id: "s1")
            #expect(state?.contains(#""a1""#) == true, "\(String(describing: state))")
        }
    }

    @Test func aDocumentCheckPassesForTheOwnersCurrentTokenAndRefusesAnExpiredOne() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.seed") { try await $0.put(Rows.user(1)) }
            let sessions = try await storage.documentTable(named: "server_sessions")
            try await sessions.insert(id: "s1", owner: "alice", state: #"{"expired": ["old"]}"#)
            let engine = DiaryEngine(storage: storage, actingAs: Rows.id(1))
            let feed = try await documentCheckExample(
                sessions: sessions, sid: "s1", userID: "alice", jti: "current", engine: engine)
            #expect(feed.items.isEmpty)
            for (sid, userID, jti) in [("s1", "alice", "old"), ("s1", "bob", "current"), ("s2", "alice", "current")] {
                await #expect(throws: DiaryError.self, "\(sid) \(userID) \(jti)") {
                    _ = try await documentCheckExample(sessions: sessions, sid: sid, userID: userID, jti: jti, engine: engine)
                }
            }
        }
    }

    @Test func aRepeatedKeyIsClaimedOnceThenReplayed() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let now = Date()
            let response = PostgresIdempotencyTable.Response(
                status: 201, contentType: "application/json", body: Data("{}".utf8), retryAfter: nil)
            var replayed: [PostgresIdempotencyTable.Response] = []
            for _ in 0..<2 {
                try await idempotencyTableExample(
                    storage: storage, key: "alice:k1", fp: "POST /v1/posts", response: response, now: now,
                    dayAgo: now.addingTimeInterval(-86_400), minuteAgo: now.addingTimeInterval(-60)) { replayed.append($0) }
            }
            #expect(replayed == [response])
        }
    }

    @Test func theEleventhTakeOfAClientIsRefusedWithAWait() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            for _ in 0..<10 { try await rateLimitTableExample(storage: storage) }
            do {
                try await rateLimitTableExample(storage: storage)
                Issue.record("the eleventh take was not refused")
            } catch let error as DiaryError {
                #expect(error.code == .rateLimited)
                #expect((error.retryAfter ?? 0) > 0)
            }
        }
    }
}
