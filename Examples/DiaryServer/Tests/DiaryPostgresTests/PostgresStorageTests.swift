@_spi(Storage) @testable import DiaryPostgres
@_spi(Storage) import DiarySDK
@_spi(Storage) import DiarySDKConformance
import Foundation
import PostgresNIO
import Testing

/// The store's own behaviour beyond the conformance suite: search semantics, blobs, failures and damaged data.
@Suite("PostgreSQL store", .enabled(if: PostgresTestDatabase.shouldRun))
struct PostgresStorageTests {
    @Test func searchAgreesWithTheSDKsMatcherOnAwkwardText() async throws {
        let posts = [
            Rows.post(1, title: "100% sure", body: "under_score and back\\slash", tags: ["Swift"]),
            Rows.post(2, title: "1000 reasons", body: "underXscore; back slash", tags: ["swift", "Café"]),
            Rows.post(3, title: "Café crème", body: "Ça va? — l’été", tags: []),
            Rows.post(4, title: "CAFE", body: "plain ascii, 50%_off", tags: ["café"], anonymous: true),
            Rows.post(5, author: 2, title: "Straße", body: "ｆｕｌｌ width and a\u{00A0}nbsp", tags: ["x"]),
            Rows.post(6, author: 2, title: "", body: "%", tags: []),
        ]
        let queries: [PostTextQuery] = [
            PostTextQuery(words: ["100%"], tags: []), PostTextQuery(words: ["%"], tags: []),
            PostTextQuery(words: ["_"], tags: []), PostTextQuery(words: ["under_score"], tags: []),
            PostTextQuery(words: ["\\"], tags: []), PostTextQuery(words: ["back\\slash"], tags: []),
            PostTextQuery(words: PostTextQuery.words(of: "cafe"), tags: []),
            PostTextQuery(words: PostTextQuery.words(of: "CAFÉ crème"), tags: []),
            PostTextQuery(words: PostTextQuery.words(of: "l'ete"), tags: []),
            PostTextQuery(words: PostTextQuery.words(of: "full WIDTH"), tags: []),
            PostTextQuery(words: PostTextQuery.words(of: "a nbsp"), tags: []),
            PostTextQuery(words: PostTextQuery.words(of: "strasse"), tags: []),
            PostTextQuery(words: [], tags: ["swift"]), PostTextQuery(words: [], tags: ["café"]),
            PostTextQuery(words: ["reasons"], tags: ["swift", "café"]), PostTextQuery(words: [], tags: ["nope"]),
            PostTextQuery(words: [], tags: []), PostTextQuery(words: ["zzz"], tags: []),
        ]
        let hideAnonymous = RowFilter(viewer: Rows.id(9), includesAnonymous: false)
        let hideAuthor2 = RowFilter(viewer: Rows.id(9), hiddenNamedAuthors: [Rows.id(2)])
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.seed") { transaction in
                for post in posts { try await transaction.put(.post(post)) }
            }
            for query in queries {
                for filter in [RowFilter.none, hideAnonymous, hideAuthor2] {
                    let expected = posts.filter { query.matches($0) && filter.admits(StorageSchema.authorship($0)) }
                        .sorted { $0.createdAt > $1.createdAt }.map(\.id)
                    let (found, count, secondPage) = try await storage.read("test.search") { reader in
                        (try await reader.searchPosts(query, from: .start, limit: 10, where: filter).map(\.id),
                         try await reader.countPosts(matching: query, where: filter),
                         try await reader.searchPosts(query, from: .offset(1), limit: 1, where: filter).map(\.id))
                    }
                    #expect(found == expected, "\(query) \(filter)")
                    #expect(count == expected.count, "\(query) \(filter)")
                    #expect(secondPage == Array(expected.dropFirst().prefix(1)), "\(query) \(filter)")
                }
            }
        }
    }

    @Test func aSearchIsPlannedForItsWordsEachTimeWhileAPageIsPrepared() async throws {
        // The best plan for a search depends on how common its words are, which a prepared statement's generic plan
        // cannot know (PostgresReader+Search.swift): searches run unprepared, other reads prepared. On one
        // connection, PostgreSQL's own list of the session's prepared statements shows which is which.
        try await PostgresTestDatabase.withStorage(maximumConnections: 1) { storage in
            try await storage.write("test.seed") { try await $0.put(.post(Rows.post(1, title: "lighthouse keeper"))) }
            for _ in 0..<7 {
                let found = try await storage.read("test.search") { reader in
                    (try await reader.searchPosts(PostTextQuery(words: ["lighthouse"], tags: []), from: .start, limit: 20, where: .none).count,
                     try await reader.page(StorageSchema.feed, Everything(), descending: true, from: .start, limit: 20, where: .none).count)
                }
                #expect(found == (1, 1))
            }
            let prepared = try await storage.client.withConnection { connection in
                var texts: [String] = []
                for try await text in try await connection.query(
                    "SELECT statement FROM pg_prepared_statements", logger: PostgresTestDatabase.logger
                ).decode(String.self) {
                    texts.append(text)
                }
                return texts
            }
            #expect(prepared.contains { $0.contains("ls_posts_created_at") && !$0.contains("search_text") }, "\(prepared)")
            #expect(!prepared.contains { $0.contains("search_text LIKE") }, "\(prepared)")
        }
    }

    @Test func rowFiltersInSQLAdmitExactlyWhatRowFilterAdmits() async throws {
        // Posts by four authors, named and anonymous; likes of post 1 by the same four.
        let posts = (1...16).map { Rows.post($0, author: 1 + $0 % 4, anonymous: $0 % 3 == 0) }
        let users = (1...4).map { Rows.id($0) as User.ID }
        var filters: [RowFilter] = []
        for viewer in [nil, users[0], users[1]] {
            for named in [[], [users[1]], [users[1], users[2]]] {
                for anonymous in [[], [users[2]], [users[0], users[3]]] {
                    for includesAnonymous in [true, false] {
                        filters.append(RowFilter(
                            viewer: viewer, hiddenNamedAuthors: Set(named), hiddenAnonymousAuthors: Set(anonymous),
                            includesAnonymous: includesAnonymous))
                    }
                }
            }
        }
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.seed") { transaction in
                for post in posts { try await transaction.put(.post(post)) }
                for user in 1...4 { try await transaction.put(Rows.like(user: user, post: 1)) }
            }
            for filter in filters {
                let expected = posts.filter { filter.admits(StorageSchema.authorship($0)) }.sorted { $0.createdAt > $1.createdAt }
                let expectedLikers = users.filter { filter.admits(Authorship(author: $0, isAnonymous: false)) }
                let (feed, feedCount, ofAuthor2, likes) = try await storage.read("test.filter") { reader in
                    (try await reader.page(StorageSchema.feed, Everything(), descending: true, from: .start, limit: 50, where: filter),
                     try await reader.count(StorageSchema.feed, Everything(), where: filter),
                     try await reader.count(StorageSchema.postsOfAuthor, users[1], where: filter),
                     try await reader.count(StorageSchema.likesByPost, equalTo: Rows.id(1), where: filter))
                }
                #expect(feed.map(\.id) == expected.map(\.id), "\(filter)")
                #expect(feedCount == expected.count, "\(filter)")
                #expect(ofAuthor2 == expected.filter { $0.authorID == users[1] }.count, "\(filter)")
                #expect(likes == expectedLikers.count, "\(filter)")
            }
        }
    }

    @Test func pagesOfAListingFollowKeysetAndOffsetInBothDirections() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.seed") { transaction in
                for number in 1...7 { try await transaction.put(.post(Rows.post(number, anonymous: number == 4))) }
            }
            let pages = try await storage.read("test.page") { reader in
                let all = try await reader.page(StorageSchema.feed, Everything(), descending: true, from: .start, limit: 3, where: .none)
                let after = try await reader.page(
                    StorageSchema.feed, Everything(), descending: true, from: .after(SortKey(all[2].createdAt, all[2].id.rawValue)),
                    limit: 3, where: .none)
                let ascending = try await reader.page(
                    StorageSchema.feed, Everything(), descending: false, from: .offset(2), limit: 2, where: .none)
                let filtered = try await reader.page(
                    StorageSchema.feed, Everything(), descending: false, from: .offset(2), limit: 2,
                    where: RowFilter(viewer: nil, includesAnonymous: false))
                let count = try await reader.count(StorageSchema.feed, Everything(), where: RowFilter(viewer: nil, includesAnonymous: false))
                return (all.map(\.id), after.map(\.id), ascending.map(\.id), filtered.map(\.id), count)
            }
            #expect(pages.0 == [7, 6, 5].map { Rows.id($0) })
            #expect(pages.1 == [4, 3, 2].map { Rows.id($0) })
            #expect(pages.2 == [3, 4].map { Rows.id($0) })
            #expect(pages.3 == [3, 5].map { Rows.id($0) })
            #expect(pages.4 == 6)
        }
    }

    @Test func aBodyThatThrowsKeepsNothingAndLogsNothing() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let changes = storage.committedBatches()
            await #expect(throws: DiaryError.self) {
                try await storage.write("test.fail") { transaction in
                    try await transaction.put(Rows.user(1))
                    throw DiaryError(.forbidden, "no")
                }
            }
            try await storage.write("test.put") { try await $0.put(Rows.user(2)) }
            let kept = try await storage.read("test.get") { reader in (try await reader.user(Rows.id(1)), try await reader.user(Rows.id(2))) }
            #expect(kept.0 == nil)
            #expect(kept.1 != nil)
            let batches = await collect(changes, within: .seconds(5))
            #expect(batches == [[StoreMutation(before: nil, after: Rows.user(2))]])
        }
    }

    @Test func aRowPutThenReadInTheSameWriteIsThereAndARuleFailingAfterItKeepsNothing() async throws {
        // A put of a row never read waits for the body's next operation: a read after it must see the row (and its
        // entries), and a body that throws after that read must undo it.
        try await PostgresTestDatabase.withStorage { storage in
            let changes = storage.committedBatches()
            let post = Rows.post(5, tags: ["Harbour"])
            await #expect(throws: DiaryError.self) {
                try await storage.write("test.fail") { transaction in
                    try await transaction.put(.post(post))
                    #expect(try await transaction.rows(StorageSchema.postsByTag, equalTo: "harbour").map(\.id) == [post.id])
                    throw DiaryError(.forbidden, "no")
                }
            }
            #expect(try await storage.read("test.get") { try await $0.record(.post(post.id)) } == nil)
            let log = SQLStatementLog()
            try await SQLStatementLog.$current.withValue(log) {
                try await storage.write("test.put") { transaction in
                    try await transaction.put(.post(post))
                    #expect(try await transaction.record(.post(post.id)) == .post(post))
                    try await transaction.put(Rows.user(6))
                }
            }
            // BEGIN, the savepoint before the first change, the post, the user with the change log row, COMMIT.
            #expect(log.allStatements.count == 5, "\(log.allStatements.joined(separator: "\n"))")
            let batches = await collect(changes, within: .seconds(5))
            #expect(batches == [[StoreMutation(before: nil, after: .post(post)), StoreMutation(before: nil, after: Rows.user(6))]])
        }
    }

    @Test func aPutOfARowTheWriteNeverReadReplacesItAndMovesItsEntries() async throws {
        // A put of a key the transaction has not read is tried as an insert first; when the row is there, it must
        // still be read and replaced, its entries moved, and the change logged with the row before.
        try await PostgresTestDatabase.withStorage { storage in
            let changes = storage.committedBatches()
            let first = Rows.post(2, tags: ["Harbour"])
            let second = Rows.post(2, title: "edited", tags: ["lighthouse"])
            let third = Rows.post(2, title: "edited")
            try await storage.write("test.put") { try await $0.put(.post(first)) }
            try await storage.write("test.put") { try await $0.put(.post(second)) }
            // Read first, then put: the transaction answers the row before from what it read.
            try await storage.write("test.edit") { transaction in
                #expect(try await transaction.record(.post(second.id)) == .post(second))
                try await transaction.put(.post(third))
            }
            let found = try await storage.read("test.get") { reader in
                (
                    try await reader.rows(StorageSchema.postsByTag, equalTo: "harbour").map(\.id),
                    try await reader.rows(StorageSchema.postsByTag, equalTo: "lighthouse").map(\.id),
                    try await reader.record(.post(first.id))
                )
            }
            #expect(found.0.isEmpty)
            #expect(found.1.isEmpty)
            #expect(found.2 == .post(third))
            let batches = await collect(changes, within: .seconds(5)) { $0.joined().count >= 3 }
            #expect(Array(batches.joined()) == [
                StoreMutation(before: nil, after: .post(first)),
                StoreMutation(before: .post(first), after: .post(second)),
                StoreMutation(before: .post(second), after: .post(third)),
            ])
        }
    }

    @Test func aStatementWhosePreparationFailedRunsAgainOnTheSameConnection() async throws {
        // postgres-nio remembers a failed preparation on a connection and fails that statement there for good;
        // the store gives such a statement a new name, so a transient failure does not stick.
        let configuration = try PostgresTestDatabase.configuration(schema: "unused").client
        let client = PostgresClient(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            var statement = SQLStatement("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = ")
            statement.bind("pg_catalog")
            let logger = PostgresTestDatabase.logger
            try await client.withConnection { connection in
                try await connection.run("BEGIN", logger: logger)
                await #expect(throws: (any Error).self) { try await connection.run("SELECT 1 / 0", logger: logger) }
                // The transaction is aborted: this statement's preparation fails.
                await #expect(throws: (any Error).self) {
                    for try await _ in try await connection.rows(statement, logger: logger, decode: { try $0.decode(Int64.self) }) {}
                }
                try await connection.run("ROLLBACK", logger: logger)
                var counts: [Int64] = []
                for _ in 0..<2 {
                    for try await count in try await connection.rows(statement, logger: logger, decode: { try $0.decode(Int64.self) }) {
                        counts.append(count)
                    }
                }
                #expect(counts == [1, 1])
            }
        }
    }

    @Test func aDocumentCheckRidesOnTheFirstBatchedReadAndAFailingOneCommitsNothing() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let sessions = try await storage.documentTable(named: "checked_sessions")
            try await sessions.insert(id: "s1", owner: "alice", state: #"{"expired":["old"]}"#)
            try await sessions.insert(id: "s9", owner: "bob", state: #"{"expired":[]}"#)
            func check(_ id: String, _ element: String) -> PostgresDocumentCheck {
                PostgresDocumentCheck(table: sessions, id: id, arrayMember: "expired", element: element) { found in
                    guard let found, found.owner == "alice", !found.holds else { throw DiaryError(.unauthenticated, "refused: \(String(describing: found))") }
                }
            }
            func expectRefused(_ error: DiaryError?, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(error?.code == .unauthenticated, sourceLocation: sourceLocation)
                #expect(error?.message.hasPrefix("refused") == true, "\(String(describing: error))", sourceLocation: sourceLocation)
            }
            try await storage.write("test.seed") { try await $0.put(Rows.user(1)) }

            // Passing: the check goes with the batch, so the read is BEGIN, one statement, COMMIT.
            let passing = check("s1", "current")
            let log = SQLStatementLog()
            let users = try await SQLStatementLog.$current.withValue(log) {
                try await PostgresDocumentCheck.$pending.withValue(passing) {
                    try await storage.read("test.read") { try await $0.records([.user(Rows.id(1)), .user(Rows.id(2))]) }
                }
            }
            #expect(users.count == 1)
            #expect(passing.isSettled)
            #expect(log.allStatements.count == 3, "\(log.allStatements.joined(separator: "\n"))")
            #expect(log.allStatements[1].contains("checked_sessions"))
            try await passing.settle()

            // A read that reads no batch checks before COMMIT, on the same connection.
            let unbatched = check("s1", "current")
            let plain = SQLStatementLog()
            _ = try await SQLStatementLog.$current.withValue(plain) {
                try await PostgresDocumentCheck.$pending.withValue(unbatched) {
                    try await storage.read("test.read") { try await $0.record(.user(Rows.id(1))) }
                }
            }
            #expect(unbatched.isSettled)
            #expect(plain.allStatements.count == 4, "\(plain.allStatements.joined(separator: "\n"))")

            // Failing (an expired element, an absent document, another owner's): the body's reads are not
            // answered, its writes are not committed, and a broken rule is not what the caller hears.
            for failing in [check("s1", "old"), check("s2", "current"), check("s9", "current")] {
                expectRefused(await #expect(throws: DiaryError.self) {
                    try await PostgresDocumentCheck.$pending.withValue(failing) {
                        try await storage.read("test.read") { try await $0.records([.user(Rows.id(1))]) }
                    }
                })
                expectRefused(await #expect(throws: DiaryError.self) {
                    try await PostgresDocumentCheck.$pending.withValue(failing) {
                        try await storage.write("test.write") { transaction in
                            try await transaction.put(Rows.user(3))
                            throw DiaryError(.forbidden, "a rule the caller must not hear about")
                        }
                    }
                })
                expectRefused(await #expect(throws: DiaryError.self) { try await failing.settle() })
            }
            // A fresh failing check carried by a write's batched read: the write stops there and keeps nothing.
            let carried = check("s9", "current")
            expectRefused(await #expect(throws: DiaryError.self) {
                try await PostgresDocumentCheck.$pending.withValue(carried) {
                    try await storage.write("test.write") { transaction in
                        try await transaction.put(Rows.user(3))
                        _ = try await transaction.records([.user(Rows.id(1))])
                        try await transaction.put(Rows.user(4))
                    }
                }
            })
            // A verdict read by a write attempt that then failed to commit is read again; a failure stands.
            let reopened = check("s1", "current")
            try await reopened.settle()
            reopened.reopenAfterFailedAttempt()
            #expect(!reopened.isSettled)
            let refused = check("s2", "current")
            expectRefused(await #expect(throws: DiaryError.self) { try await refused.settle() })
            refused.reopenAfterFailedAttempt()
            #expect(refused.isSettled)
            let unchecked = check("s3", "current")
            expectRefused(await #expect(throws: DiaryError.self) {
                try await PostgresDocumentCheck.$pending.withValue(unchecked) {
                    try await storage.write("test.write") { transaction in
                        try await transaction.put(Rows.user(4))
                        try await transaction.put(Rows.user(5))
                    }
                }
            })
            let kept = try await storage.read("test.get") { try await $0.records([3, 4, 5].map { .user(Rows.id($0)) }) }
            #expect(kept.isEmpty, "\(kept)")
        }
    }

    @Test func aRemovalOfARowTheWriteFoundAbsentSendsNothing() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let log = SQLStatementLog()
            try await SQLStatementLog.$current.withValue(log) {
                try await storage.write("test.remove") { transaction in
                    #expect(try await transaction.record(.user(Rows.id(9))) == nil)
                    try await transaction.remove(.user(Rows.id(9)))
                }
            }
            // BEGIN, the read, COMMIT: no savepoint, no DELETE, no change log row.
            #expect(log.allStatements.count == 3, "\(log.allStatements)")
        }
    }

    @Test func blobsRoundTripAndGoWithTheirAttachmentRow() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let id: DiarySDK.Attachment.ID = Rows.id(5)
            let bytes = Data((0..<300).map { UInt8($0 % 256) })
            try await storage.saveBlob(bytes, for: id)
            #expect(try await storage.blob(for: id) == bytes)
            let missing = await #expect(throws: DiaryError.self) { try await storage.blob(for: Rows.id(6)) }
            #expect(missing?.code == .notFound)

            let attachment = DiarySDK.Attachment(
                id: id, ownerID: Rows.id(1), contentType: "image/png", byteCount: bytes.count, createdAt: Rows.epoch)
            try await storage.write("test.put") { try await $0.put(.attachment(attachment)) }
            try await storage.write("test.remove") { try await $0.remove(.attachment(id)) }
            let gone = await #expect(throws: DiaryError.self) { try await storage.blob(for: id) }
            #expect(gone?.code == .notFound)
        }
    }

    @Test func aDamagedRowIsAStorageCorruptedErrorNotACrash() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.put") { try await $0.put(Rows.user(1)) }
            try await RawSQL.execute(
                "UPDATE \(storage.schemaName).row_user SET doc = '{\"user\": {\"nickname\": 42}}'::jsonb")
            let error = await #expect(throws: DiaryError.self) {
                try await storage.read("test.get") { try await $0.user(Rows.id(1)) }
            }
            #expect(error?.code == .storageCorrupted)
            // A well-formed row of another kind in the users table.
            try await storage.write("test.put") { try await $0.put(.post(Rows.post(2))) }
            try await RawSQL.execute(
                "UPDATE \(storage.schemaName).row_user SET doc = (SELECT doc FROM \(storage.schemaName).row_post LIMIT 1)")
            let wrongKind = await #expect(throws: DiaryError.self) {
                try await storage.read("test.get") { try await $0.user(Rows.id(1)) }
            }
            #expect(wrongKind?.code == .storageCorrupted)
        }
    }

    @Test func anIndexAddedLaterIsCreatedAndFilledFromTheStoredRows() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.seed") { transaction in
                try await transaction.put(.post(Rows.post(1, tags: ["Late"])))
                try await transaction.put(.post(Rows.post(2, tags: ["late", "other"])))
                try await transaction.put(.post(Rows.post(3, tags: ["other"])))
            }
            // As if `posts.tags` were new in this release: its table and its migration record are gone.
            try await RawSQL.execute("DROP TABLE \(storage.schemaName).ix_posts_tags")
            try await RawSQL.execute("DELETE FROM \(storage.schemaName).schema_migrations WHERE version = 'index:posts.tags'")

            let upgraded = try await PostgresTestDatabase.connect(schema: storage.schemaName)
            let tagged = try await upgraded.read("test.tags") { reader in
                try await reader.rows(StorageSchema.postsByTag, equalTo: "late").map(\.id)
            }
            await PostgresTestDatabase.release(upgraded)
            #expect(Set(tagged) == [Rows.id(1), Rows.id(2)])
        }
    }

    @Test func postsWrittenBeforeTheirFeedColumnsAreMigratedAndStillSearchedInFeedOrder() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.seed") { transaction in
                for number in 1...6 {
                    try await transaction.put(.post(Rows.post(
                        number, author: number % 3 + 1, body: number % 2 == 0 ? "a lighthouse \(number)" : "a harbour \(number)",
                        anonymous: number == 4)))
                }
            }
            let posts = storage.layout.recordTable(.post)
            let feed = storage.layout.qualified(try storage.layout.listing(named: StorageSchema.feed.name).table)
            // As a store of the previous release left them: no feed columns (and so no index on them), no record.
            try await RawSQL.execute(
                "ALTER TABLE \(posts) DROP COLUMN sort_micros, DROP COLUMN sort_id, DROP COLUMN author_id, DROP COLUMN is_anonymous")
            try await RawSQL.execute(
                "DELETE FROM \(storage.schemaName).schema_migrations WHERE version = '\(PostgresMigrator.postFeedColumnsVersion)'")

            let upgraded = try await PostgresTestDatabase.connect(schema: storage.schemaName)
            let hidingAuthor3 = RowFilter(viewer: Rows.id(1) as User.ID, hiddenNamedAuthors: [Rows.id(3) as User.ID], hiddenAnonymousAuthors: [])
            let (everyone, filtered, afterFirst) = try await upgraded.read("test.search") { reader in
                let query = PostTextQuery(words: ["lighthouse"], tags: [])
                let everyone = try await reader.searchPosts(query, from: .start, limit: 10, where: .none).map(\.id)
                let filtered = try await reader.searchPosts(query, from: .start, limit: 10, where: hidingAuthor3).map(\.id)
                let cursor = SortKey(Rows.epoch.addingTimeInterval(6), (Rows.id(6) as Post.ID).rawValue)
                let afterFirst = try await reader.searchPosts(query, from: .after(cursor), limit: 10, where: .none).map(\.id)
                return (everyone, filtered, afterFirst)
            }
            let matching = try await RawSQL.strings("""
                SELECT count(*)::text FROM \(posts) r JOIN \(feed) l ON l.key = r.key \
                WHERE (r.sort_micros, r.sort_id, r.author_id, r.is_anonymous) = (l.sort_micros, l.sort_id, l.author_id, l.is_anonymous)
                """)
            let indexed = try await RawSQL.strings(
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = '\(storage.schemaName)' AND indexname = '\(storage.layout.postFeedIndex.name)'")
            await PostgresTestDatabase.release(upgraded)
            // Posts 2, 4 and 6 say "lighthouse"; newest first. Post 2 (author 3, named) is hidden by the filter, post 4
            // (author 2, anonymous) is not.
            #expect(everyone == [Rows.id(6), Rows.id(4), Rows.id(2)])
            #expect(filtered == [Rows.id(6), Rows.id(4)])
            #expect(afterFirst == [Rows.id(4), Rows.id(2)])
            #expect(matching == ["6"])
            #expect(indexed == [storage.layout.postFeedIndex.name])
        }
    }

    @Test func textPostgreSQLCannotHoldIsInvalidInputNotACrash() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let error = await #expect(throws: DiaryError.self) {
                try await storage.write("test.put") { try await $0.put(.post(Rows.post(1, body: "nul\u{0}byte"))) }
            }
            #expect(error?.code == .invalidInput)
            let stored = try await storage.read("test.get") { try await $0.post(Rows.id(1)) }
            #expect(stored == nil)
        }
    }

    @Test func trimmingTheChangeLogDeletesOnlyOlderEntries() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.put") { try await $0.put(Rows.user(1)) }
            try await storage.write("test.put") { try await $0.put(Rows.user(2)) }
            let entries = "SELECT count(*)::text FROM \(storage.schemaName).change_log"
            #expect(try await storage.trimChangeLog(committedBefore: Date().addingTimeInterval(-3_600)) == 0)
            #expect(try await RawSQL.strings(entries) == ["2"])
            #expect(try await storage.trimChangeLog(committedBefore: Date().addingTimeInterval(3_600)) == 2)
            #expect(try await RawSQL.strings(entries) == ["0"])
        }
    }

    @Test func everyDeclaredIndexAndListingHasItsTable() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let tables = Set(try await RawSQL.strings(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = '\(storage.schemaName)'"))
            #expect(tables.filter { $0.hasPrefix("row_") }.count == RecordKind.allCases.count)
            #expect(tables.filter { $0.hasPrefix("ix_") }.count == StorageSchema.allIndices.count)
            #expect(tables.filter { $0.hasPrefix("ls_") }.count == StorageSchema.allListings.count)
            #expect(tables.isSuperset(of: ["blobs", "change_log", "schema_migrations", "ix_users_nickname_key"]))
        }
    }

    @Test func aMalformedURLIsInvalidInputThatDoesNotRepeatThePassword() throws {
        for url in ["http://user:s3cret@host/db", "postgres://user:s3cret@/db", "postgres://user:s3cret@host/", "postgres://host/db"] {
            let error = #expect(throws: DiaryError.self) { try PostgresDiaryStorage.Configuration(url: url) }
            #expect(error?.code == .invalidInput)
            #expect(error?.description.contains("s3cret") == false)
        }
        let parsed = try PostgresDiaryStorage.Configuration(url: "postgres://me:p%40ss@127.0.0.1:6543/diary", schema: "s")
        #expect(parsed.client.host == "127.0.0.1")
        #expect(parsed.client.port == 6543)
        #expect(parsed.client.username == "me")
        #expect(parsed.client.password == "p@ss")
        #expect(parsed.client.database == "diary")
    }

    @Test func anUnreachableDatabaseIsUnavailableAndABadSchemaNameIsRefused() async throws {
        var configuration = try PostgresDiaryStorage.Configuration(url: "postgres://me:s3cret@127.0.0.1:1/diary")
        configuration.client.options.connectTimeout = .seconds(2)
        configuration.startupTimeout = .seconds(3)
        let error = await #expect(throws: DiaryError.self) {
            let storage = try await PostgresDiaryStorage.connect(configuration: configuration)
            await storage.shutdown()
        }
        #expect(error?.code == .unavailable)
        #expect(error?.description.contains("s3cret") == false)

        let badSchema = await #expect(throws: DiaryError.self) {
            let storage = try await PostgresDiaryStorage.connect(
                configuration: try PostgresTestDatabase.configuration(schema: "Robert'); DROP TABLE students;--"))
            await storage.shutdown()
        }
        #expect(badSchema?.code == .server)
    }
}

/// The storage contract's own checks (``StorageContractChecks``) on the PostgreSQL store, whose batched reads are
/// its own statements (one `= ANY($1)` or `UNION ALL` statement each), not the contract's defaults.
@Suite("PostgreSQL store: storage contract", .enabled(if: PostgresTestDatabase.shouldRun))
struct PostgresStorageContractTests {
    @Test func batchedReadsAgreeWithSingleReads() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            try await StorageContractChecks.batchedReadsAgreeWithSingleReads(on: storage)
        }
    }

    @Test func aPageOfPostsIsReadInAFixedNumberOfStatements() async throws {
        // What made the server slow (issue 12): each post on a page cost four statements of its own. Now a page of
        // the feed, a search or an author's posts costs the same few statements however many posts it shows (the
        // viewer's row and blocks, the page, what the page shows beside its posts, inside BEGIN … COMMIT), and its
        // comments' authors are read once for the page. Every round trip is counted.
        try await PostgresTestDatabase.withStorage { storage in
            let world = try await StorageConformanceHarness(makeStorage: { storage }).makeWorld()
            let reader = try await world.makeDevice()
            let author = try await world.makeDevice()
            _ = try await reader.accounts.signUp(SignUpRequest(email: "reader@example.com", password: "correct horse 1", nickname: "Reader"))
            let writer = try await author.accounts.signUp(SignUpRequest(email: "author@example.com", password: "correct horse 1", nickname: "Author"))
            var posts: [Post] = []
            for number in 1...30 {
                posts.append(try await author.posts.publish(PostDraft(
                    title: "Lighthouse \(number)", body: "A walk to the lighthouse.", isAnonymous: number % 5 == 0)))
            }
            for post in posts.prefix(12) { _ = try await reader.posts.like(post.id) }
            let commented = try #require(posts.last)
            for number in 1...10 {
                let comment = try await author.comments.addComment(CommentDraft(target: .post(commented.id), body: "comment \(number)"))
                _ = try await reader.comments.addComment(CommentDraft(target: .post(commented.id), parentID: comment.id, body: "reply \(number)"))
            }
            func statements(_ read: @Sendable () async throws -> Int) async throws -> (items: Int, statements: Int) {
                let log = SQLStatementLog()
                let items = try await SQLStatementLog.$current.withValue(log) { try await read() }
                return (items, log.allStatements.count)
            }
            for size in [2, 20] {
                let feed = try await statements { try await reader.posts.feed(page: .first(size: size)).items.count }
                let search = try await statements {
                    try await reader.posts.search(PostSearch(text: "lighthouse"), page: .first(size: size)).items.count
                }
                let byAuthor = try await statements { try await reader.posts.posts(by: writer.id, page: .first(size: size)).items.count }
                let comments = try await statements {
                    try await reader.comments.comments(on: .post(commented.id), page: .first(size: size)).items.count
                }
                #expect(feed == (size, 5), "feed of \(size): \(feed)")
                #expect(search == (size, 5), "search of \(size): \(search)")
                #expect(byAuthor == (size, 5), "an author's posts, \(size): \(byAuthor)")
                #expect(comments == (min(size, 10), 7), "comments, \(size): \(comments)")
            }
            try await world.shutdown()
        }
    }

    @Test func aNewPostIsWrittenInAFixedNumberOfStatements() async throws {
        // Issue 12: creating a post was 10 statements in its transaction (the author's row and blocks apart, a
        // savepoint, a read of the row before, three statements for the change log). Now: BEGIN, the author's row
        // and blocks, the row with its entries and the change log row, COMMIT (no savepoint: no rule runs after
        // the write).
        try await PostgresTestDatabase.withStorage { storage in
            let world = try await StorageConformanceHarness(makeStorage: { storage }).makeWorld()
            let author = try await world.makeDevice()
            _ = try await author.accounts.signUp(SignUpRequest(email: "author@example.com", password: "correct horse 1", nickname: "Author"))
            for tags in [[], ["walks", "sea"]] {
                let log = SQLStatementLog()
                let post = try await SQLStatementLog.$current.withValue(log) {
                    try await author.posts.publish(PostDraft(title: "Lighthouse", body: "A walk.", tags: tags))
                }
                #expect(post.tags == tags)
                let sent = log.allStatements
                #expect(sent.count == 4, "\(sent.joined(separator: "\n"))")
                #expect(sent.first?.hasPrefix("BEGIN") == true)
                #expect(sent.last == "COMMIT")
            }
            try await world.shutdown()
        }
    }
}
