@_spi(Storage) @testable import DiaryPostgres
@_spi(Storage) import DiarySDK
import Foundation
import Logging
import PostgresNIO
import Testing

/// The plans of the statements the store issues on its hot paths, over a schema of about 100,000 rows: each read is
/// run through the store with a ``SQLStatementLog`` recording its exact SQL and bindings, then planned with
/// `EXPLAIN (FORMAT JSON)`; no plan may scan a large table sequentially.
@Suite("PostgreSQL store query plans at 100,000 rows", .enabled(if: PostgresTestDatabase.shouldRun))
struct PostgresQueryPlanTests {
    @Test func everyHotPathReadUsesAnIndexAtAHundredThousandRows() async throws {
        try await PostgresTestDatabase.withStorage { storage in
            let data = PlanFixture()
            let written = try await data.fill(storage)
            #expect(written >= 100_000)
            let layout = storage.layout
            let tables = Array(layout.recordTables.values) + layout.indices.values.map(\.table) + layout.listings.values.map(\.table)
            for table in tables { try await RawSQL.execute("ANALYZE \(layout.qualified(table))") }
            let counts = layout.recordTables.values.map { "(SELECT count(*) FROM \(layout.qualified($0)))" }
            let stored = try await RawSQL.strings("SELECT (\(counts.joined(separator: " + ")))::text")
            #expect(stored == [String(written)], "rows stored: \(stored), written: \(written)")

            let paths = try await data.hotPaths(on: storage)
            #expect(paths.count >= 20)
            let large = try await largeTables(of: storage)
            let feed = try storage.layout.listing(named: StorageSchema.feed.name).table.name
            let likes = try storage.layout.index(named: StorageSchema.likesByPost.name).table.name
            #expect(large.isSuperset(of: ["row_post", "row_like", feed, likes]), "\(large.sorted())")
            var planned = 0
            for (name, statements) in paths {
                #expect(!statements.isEmpty, "\(name) issued no statement")
                for statement in statements {
                    planned += 1
                    let plan = try await explain(statement, on: storage)
                    let scans = Self.sequentialScans(in: plan).filter { large.contains($0) }
                    #expect(scans.isEmpty, "\(name): a sequential scan of \(scans) in the plan of \(statement.sql)\n\(plan)")
                    // The store runs its statements prepared, and PostgreSQL moves a prepared statement to a plan
                    // made without its values (a generic plan) once that plans no worse: that one must not scan
                    // a large table either. (A search is never prepared, so it has none.)
                    guard statement.isPrepared else { continue }
                    let generic: String
                    do {
                        generic = try await explainGeneric(statement, on: storage)
                    } catch {
                        Issue.record("\(name): no generic plan of \(statement.sql): \(String(reflecting: error))")
                        continue
                    }
                    let genericScans = Self.sequentialScans(in: generic).filter { large.contains($0) }
                    #expect(
                        genericScans.isEmpty,
                        "\(name): a sequential scan of \(genericScans) in the generic plan of \(statement.sql)\n\(generic)")
                }
            }
            #expect(planned >= paths.count)
            try await searchesArePlannedForTheirWords(on: storage)
        }
    }

    @Test func theStoresConnectionsPlanWithoutBoundValuesWithoutParallelWorkersOrJITInUTF8() async throws {
        let query = """
            SELECT pg_backend_pid()::text || ' ' || current_setting('plan_cache_mode') || ' ' \
            || current_setting('max_parallel_workers_per_gather') || ' ' || current_setting('jit') || ' ' \
            || current_setting('client_encoding')
            """
        try await PostgresTestDatabase.withStorage { storage in
            // Three connections of the pool held at once, so three different ones answer.
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await storage.client.withConnection { connection in
                            var answer = ""
                            for try await row in try await connection.query(PostgresQuery(unsafeSQL: query), logger: PostgresTestDatabase.logger).decode(String.self) {
                                answer = row
                            }
                            try await Task.sleep(for: .milliseconds(300))
                            return answer
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(answers.map { $0.split(separator: " ")[0] }).count == 3, "\(answers)")
            #expect(answers.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == Array(repeating: "force_generic_plan 0 off UTF8", count: 3))
        }
        // A parameter the client's own configuration names wins over the store's default (names compared ignoring
        // case, as PostgreSQL does), but never the client encoding: literals are written in UTF-8.
        var configuration = try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema())
        configuration.client.options.additionalStartupParameters = [("PLAN_CACHE_MODE", "auto"), ("client_encoding", "SJIS")]
        configuration.client.options.maximumConnections = 1
        await PostgresTestDatabase.connections.acquire(1)
        let storage: PostgresDiaryStorage
        do {
            storage = try await PostgresDiaryStorage.connect(configuration: configuration, logger: PostgresTestDatabase.logger)
        } catch {
            await PostgresTestDatabase.connections.release(1)
            throw error
        }
        await PostgresTestDatabase.connections.remember(ObjectIdentifier(storage), 1)
        let settings: [String]
        do {
            settings = try await Self.strings(on: storage, query)
        } catch {
            try? await storage.dropSchema()
            await PostgresTestDatabase.release(storage)
            throw error
        }
        try await storage.dropSchema()
        await PostgresTestDatabase.release(storage)
        #expect(settings.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == ["auto 0 off UTF8"])
    }

    @Test func maintenanceDeletesKeepToTheirIndexWhenPlannedWithoutTheirValues() async throws {
        // trimChangeLog's and the expiry sweeps' batched deletes (SQLStatement.deleteOldest) run unnamed with a
        // bound date, which the store's connections plan without: over 200,000 change log rows the batch must
        // still find its rows through the `committed_at` index, not read the table whole.
        try await PostgresTestDatabase.withStorage { storage in
            let log = storage.layout.qualified(PostgresMigrator.changeLogTable)
            try await RawSQL.execute("""
                INSERT INTO \(log) (mutations, committed_at) \
                SELECT '[]'::jsonb, timestamptz '2026-01-01 00:00:00+00' - make_interval(secs => n) FROM generate_series(1, 200000) AS n
                """)
            try await RawSQL.execute("ANALYZE \(log)")
            // 2026-01-01 00:00:00 UTC, less 100,000.5 s: the rows 100,001 s old and older, 100,000 of them.
            let cutoff = Date(timeIntervalSince1970: 1_767_225_600 - 100_000.5)
            let statement = SQLStatement.deleteOldest(
                from: log, key: "seq", where: "committed_at", "<", cutoff, limit: PostgresDiaryStorage.trimBatchSize)
            #expect(statement.bindings.count == 2)
            // (explainGeneric runs the statement once to prepare it: that deletes the first batch.)
            let generic = try await explainGeneric(statement, on: storage)
            #expect(Self.sequentialScans(in: generic).isEmpty, "a sequential scan in the generic plan of \(statement.sql)\n\(generic)")
            #expect(generic.contains(PostgresMigrator.changeLogTimeIndex.name), "\(generic)")
            let deleted = try await storage.trimChangeLog(committedBefore: cutoff)
            #expect(deleted == 90_000)
            #expect(try await RawSQL.strings("SELECT count(*)::text FROM \(log)") == ["100000"])
        }
    }

    @Test func theSequentialScanDetectorFindsOne() async throws {
        // The check above is only as good as this: a plan that reads a large table whole is caught.
        try await PostgresTestDatabase.withStorage { storage in
            try await storage.write("test.put") { transaction in
                for number in 1...200 { try await transaction.put(Rows.user(number)) }
            }
            try await RawSQL.execute("ANALYZE \(storage.layout.recordTable(.user))")
            let unindexed = SQLStatement("SELECT key FROM \(storage.layout.recordTable(.user)) WHERE doc->>'nickname' = 'user7'")
            let plan = try await explain(unindexed, on: storage)
            #expect(Self.sequentialScans(in: plan) == ["row_user"])
            var bound = SQLStatement("SELECT key FROM \(storage.layout.recordTable(.user)) WHERE doc->>'nickname' = ")
            bound.bind("user7")
            let generic = try await explainGeneric(bound, on: storage)
            #expect(Self.sequentialScans(in: generic) == ["row_user"])
        }
    }

    // MARK: - Helpers

    /// A search's statement holds its words, page size and filter as literals, binds nothing, and so is planned for
    /// its words on the store's connections (which plan every statement with bound values without them): a word in
    /// half the posts walks the feed in order and stops at the page's end; a word in a handful of posts is found
    /// through the trigram index.
    func searchesArePlannedForTheirWords(on storage: PostgresDiaryStorage) async throws {
        let data = PlanFixture()
        let viewer = RowFilter(viewer: data.user(1_234), hiddenNamedAuthors: [data.user(5)], hiddenAnonymousAuthors: [data.user(7)])
        func plan(of words: [String]) async throws -> (statement: SQLStatement, plan: String) {
            let log = SQLStatementLog()
            let found = try await SQLStatementLog.$current.withValue(log) {
                try await storage.read("test.plan") { try await $0.searchPosts(PostTextQuery(words: words, tags: []), from: .start, limit: 21, where: viewer) }
            }
            #expect(!found.isEmpty, "the search for \(words) found nothing")
            let statement = try #require(log.statements.first { $0.sql.contains("LIKE") })
            return (statement, try await explain(statement, on: storage))
        }
        let trigramIndex = storage.layout.postSearchIndices.text.name
        let common = try await plan(of: ["garden"])
        let rare = try await plan(of: ["post2345"])
        for (statement, _) in [common, rare] {
            #expect(!statement.isPrepared)
            #expect(statement.bindings.count == 0, "a search bound values: \(statement.sql)")
        }
        #expect(common.statement.sql.contains("LIKE E'%garden%'"))
        #expect(!common.plan.contains("Bitmap Index Scan"), "a common word's search used a bitmap scan:\n\(common.plan)")
        #expect(common.plan.contains("\"Scan Direction\": \"Backward\""), "\(common.plan)")
        #expect(rare.plan.contains("Bitmap Index Scan"), "a rare word's search did not use the trigram index:\n\(rare.plan)")
        #expect(rare.plan.contains(trigramIndex), "\(trigramIndex) is not in:\n\(rare.plan)")
    }

    /// Tables of the store's schema holding more than 1,000 rows (what a sequential scan must not read).
    func largeTables(of storage: PostgresDiaryStorage) async throws -> Set<String> {
        Set(try await RawSQL.strings("""
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
            WHERE n.nspname = '\(storage.layout.schema.name)' AND c.relkind = 'r' AND c.reltuples > 1000
            """))
    }

    /// `EXPLAIN (FORMAT JSON)` of a statement with its own bindings.
    func explain(_ statement: SQLStatement, on storage: PostgresDiaryStorage) async throws -> String {
        let query = PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) " + statement.sql, binds: statement.bindings)
        var lines: [String] = []
        for try await line in try await storage.client.query(query, logger: PostgresTestDatabase.logger).decode(String.self) {
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `EXPLAIN (FORMAT JSON)` of the generic plan of a statement as the store prepares it (``PreparedSQL``): run
    /// once prepared (with the parameter types the store binds), then `EXPLAIN EXECUTE` under
    /// `plan_cache_mode = force_generic_plan`, on one connection.
    func explainGeneric(_ statement: SQLStatement, on storage: PostgresDiaryStorage) async throws -> String {
        let logger = PostgresTestDatabase.logger
        return try await storage.client.withConnection { connection in
            try await connection.run("SET plan_cache_mode = force_generic_plan", logger: logger)
            for try await _ in try await connection.rows(statement, logger: logger, decode: { _ in () }) {}
            let placeholders = statement.sql.matches(of: /\$([0-9]+)/).compactMap { Int($0.output.1) }.max() ?? 0
            // A generic plan is made without the values, so any will do: NULL, which fits every parameter's type.
            let arguments = placeholders == 0 ? "" : "(" + Array(repeating: "NULL", count: placeholders).joined(separator: ", ") + ")"
            let query = PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) EXECUTE \(PreparedSQL.name(for: statement.sql))\(arguments)")
            var lines: [String] = []
            for try await line in try await connection.query(query, logger: logger).decode(String.self) { lines.append(line) }
            try await connection.run("RESET plan_cache_mode", logger: logger)
            return lines.joined(separator: "\n")
        }
    }

    /// The first column of every row `sql` returns, as text, on one of the store's own connections.
    static func strings(on storage: PostgresDiaryStorage, _ sql: String) async throws -> [String] {
        var values: [String] = []
        for try await value in try await storage.client.query(PostgresQuery(unsafeSQL: sql), logger: PostgresTestDatabase.logger).decode(String.self) {
            values.append(value)
        }
        return values
    }

    /// The relations a JSON plan scans sequentially.
    static func sequentialScans(in plan: String) -> [String] {
        guard let json = try? JSONSerialization.jsonObject(with: Data(plan.utf8)) else { return ["<unreadable plan>"] }
        var found: [String] = []
        func walk(_ node: Any) {
            if let object = node as? [String: Any] {
                if object["Node Type"] as? String == "Seq Scan", let relation = object["Relation Name"] as? String {
                    found.append(relation)
                }
                object.values.forEach(walk)
            } else if let array = node as? [Any] {
                array.forEach(walk)
            }
        }
        walk(json)
        return found
    }
}

/// About 100,000 rows of a small community: 2,000 users, 30,000 posts, 40,000 likes, 15,000 comments, 10,000
/// entries, 300 books with 1,200 memberships, 2,500 follows and 500 blocks. Rows go in through the store's own row
/// coding and declarations (``PostgresRowCoding``, ``PostgresIndexDeclaration/entries(of:)``), a table at a time
/// with `unnest`, so the tables hold exactly what the store's writes would put there, in seconds.
struct PlanFixture: Sendable {
    let users = 2_000
    let posts = 30_000
    let likes = 40_000
    let comments = 15_000
    let diaries = 10_000
    let books = 300
    let follows = 2_500
    let blocks = 500
    let words = ["morning", "coffee", "rain", "walk", "garden", "train", "music", "letter", "river", "bread", "window", "quiet"]

    func user(_ number: Int) -> User.ID { Rows.id(number) }
    func post(_ number: Int) -> Post.ID { Rows.id(1_000_000 + number) }
    func book(_ number: Int) -> DiaryBook.ID { Rows.id(2_000_000 + number) }
    func date(_ number: Int) -> Date { Rows.epoch.addingTimeInterval(Double(number) * 37) }
    let utc = TimeZone(identifier: "UTC")!

    var records: [StoreRecord] {
        var records: [StoreRecord] = []
        for number in 1...users { records.append(Rows.user(number)) }
        for number in 1...posts {
            let author = number % users + 1
            let text = (0..<6).map { words[(number * 7 + $0 * 5) % words.count] }.joined(separator: " ") + " post\(number)"
            records.append(.post(PostRecord(
                id: post(number), authorID: user(author), isAnonymous: number % 10 == 0, title: "Title \(number)", body: text,
                tags: ["tag\(number % 2_000)"], images: [], source: .original, day: LocalDate(date(number), in: utc),
                createdAt: date(number), updatedAt: date(number))))
        }
        for number in 1...likes {
            let liker = number % (users - 1) + 1
            let liked = number * 7_919 % posts + 1
            records.append(.like(LikeRecord(userID: user(liker), postID: post(liked), createdAt: date(number))))
        }
        for number in 1...comments {
            records.append(.comment(CommentRecord(
                id: Rows.id(3_000_000 + number), target: .post(post(number % 3_000 + 1)), parentID: nil,
                authorID: user(number % users + 1), isAnonymous: false, body: "comment \(number)", mood: nil,
                createdAt: date(number), updatedAt: date(number))))
        }
        for number in 1...diaries {
            let author = number % users + 1
            records.append(.diary(Diary(
                id: Rows.id(4_000_000 + number), authorID: user(author), bookID: number % 4 == 0 ? book(number % books + 1) : nil,
                day: LocalDate(date(number * 300), in: utc), title: "", body: "entry \(number)",
                visibility: number % 4 == 0 ? .members : .private, createdAt: date(number * 300), updatedAt: date(number * 300))))
        }
        for number in 1...books {
            records.append(.book(DiaryBook(
                id: book(number), title: "Book \(number)", coverColor: "#FFD166", ownerID: user(number),
                inviteCode: String(format: "CODE%04d", number), currentTurn: user(number), createdAt: date(number), updatedAt: date(number))))
            for member in 0..<4 {
                records.append(.membership(MembershipRecord(
                    bookID: book(number), userID: user((number + member * 500) % users + 1), role: member == 0 ? .owner : .member,
                    joinedAt: date(number + member))))
            }
        }
        for number in 1...follows {
            records.append(.follow(EdgeRecord(from: user(number % users + 1), to: user((number * 13) % users + 1), createdAt: date(number))))
        }
        for number in 1...blocks {
            records.append(.block(EdgeRecord(from: user(number % users + 1), to: user((number * 31 + 7) % users + 1), createdAt: date(number))))
        }
        return records
    }

    /// Writes every row and its index and listing entries; returns how many rows.
    func fill(_ storage: PostgresDiaryStorage) async throws -> Int {
        let layout = storage.layout
        let all = records
        var byKind: [RecordKind: [StoreRecord]] = [:]
        for record in all { byKind[record.kind, default: []].append(record) }
        var deduplicated: [RecordKind: [StoreRecord]] = [:]
        for (kind, records) in byKind {
            var seen = Set<String>()
            deduplicated[kind] = records.filter { seen.insert(PostgresRowCoding.key($0.key)).inserted }
        }
        for (kind, records) in deduplicated {
            for chunk in stride(from: 0, to: records.count, by: 5_000).map({ Array(records[$0..<min($0 + 5_000, records.count)]) }) {
                try await insertRows(chunk, kind: kind, layout: layout, storage: storage)
                for index in layout.indicesOfKind[kind] ?? [] {
                    var values: [String] = [], keys: [String] = [], authors: [UUID] = [], anonymous: [Bool] = []
                    for record in chunk {
                        for entry in index.declaration.entries(of: record) {
                            values.append(entry.value)
                            keys.append(PostgresRowCoding.key(record.key))
                            authors.append(entry.author?.author.rawValue ?? UUID())
                            anonymous.append(entry.author?.isAnonymous ?? false)
                        }
                    }
                    guard !values.isEmpty else { continue }
                    var statement = SQLStatement("INSERT INTO \(layout.qualified(index.table)) (value, key, author_id, is_anonymous) ")
                    let filtered = index.declaration.isFiltered
                    statement.append("SELECT value, key, \(filtered ? "author_id, is_anonymous" : "NULL::uuid, NULL::boolean") FROM unnest(")
                    statement.bind(values)
                    statement.append("::text[], ")
                    statement.bind(keys)
                    statement.append("::text[], ")
                    statement.bind(authors)
                    statement.append("::uuid[], ")
                    statement.bind(anonymous)
                    statement.append("::boolean[]) AS entry(value, key, author_id, is_anonymous)")
                    try await storage.client.run(statement.query, logger: PostgresTestDatabase.logger)
                }
                for listing in layout.listingsOfKind[kind] ?? [] {
                    var partitions: [String] = [], micros: [Int64] = [], ids: [UUID] = [], keys: [String] = []
                    var authors: [UUID] = [], anonymous: [Bool] = []
                    for record in chunk {
                        for entry in listing.declaration.entries(of: record) {
                            partitions.append(entry.partition)
                            micros.append(entry.key.micros)
                            ids.append(entry.key.id)
                            keys.append(PostgresRowCoding.key(record.key))
                            authors.append(entry.author?.author.rawValue ?? UUID())
                            anonymous.append(entry.author?.isAnonymous ?? false)
                        }
                    }
                    guard !partitions.isEmpty else { continue }
                    let filtered = listing.declaration.isFiltered
                    var statement = SQLStatement(
                        "INSERT INTO \(layout.qualified(listing.table)) (partition, sort_micros, sort_id, key, author_id, is_anonymous) ")
                    statement.append("SELECT partition, sort_micros, sort_id, key, \(filtered ? "author_id, is_anonymous" : "NULL::uuid, NULL::boolean") FROM unnest(")
                    statement.bind(partitions)
                    statement.append("::text[], ")
                    statement.bind(micros)
                    statement.append("::bigint[], ")
                    statement.bind(ids)
                    statement.append("::uuid[], ")
                    statement.bind(keys)
                    statement.append("::text[], ")
                    statement.bind(authors)
                    statement.append("::uuid[], ")
                    statement.bind(anonymous)
                    statement.append("::boolean[]) AS entry(partition, sort_micros, sort_id, key, author_id, is_anonymous)")
                    statement.append(" ON CONFLICT (partition, sort_micros, sort_id) DO NOTHING")
                    try await storage.client.run(statement.query, logger: PostgresTestDatabase.logger)
                }
            }
        }
        return deduplicated.values.map(\.count).reduce(0, +)
    }

    private func insertRows(_ records: [StoreRecord], kind: RecordKind, layout: PostgresSchemaLayout, storage: PostgresDiaryStorage) async throws {
        let keys = records.map { PostgresRowCoding.key($0.key) }
        let documents = try records.map { try PostgresRowCoding.document($0) }
        var statement = SQLStatement()
        if kind == .post {
            let posts = records.compactMap { if case .post(let post) = $0 { post } else { nil } }
            statement.append(
                "INSERT INTO \(layout.recordTable(kind)) (key, doc, search_text, search_tags, sort_micros, sort_id, author_id, is_anonymous) ")
            statement.append(
                "SELECT key, doc::jsonb, search_text, string_to_array(tags, chr(31)), sort_micros, sort_id, author_id, is_anonymous FROM unnest(")
            statement.bind(keys)
            statement.append("::text[], ")
            statement.bind(documents)
            statement.append("::text[], ")
            statement.bind(posts.map(PostgresDerivedRows.searchText(of:)))
            statement.append("::text[], ")
            statement.bind(posts.map { PostgresDerivedRows.searchTags(of: $0).joined(separator: "\u{1F}") })
            statement.append("::text[], ")
            let feed = posts.map(PostgresDerivedRows.feedColumns(of:))
            statement.bind(feed.map(\.sortKey.micros))
            statement.append("::bigint[], ")
            statement.bind(feed.map(\.sortKey.id))
            statement.append("::uuid[], ")
            statement.bind(feed.map(\.author))
            statement.append("::uuid[], ")
            statement.bind(feed.map(\.isAnonymous))
            statement.append("::boolean[]) AS row(key, doc, search_text, tags, sort_micros, sort_id, author_id, is_anonymous)")
        } else {
            statement.append("INSERT INTO \(layout.recordTable(kind)) (key, doc) SELECT key, doc::jsonb FROM unnest(")
            statement.bind(keys)
            statement.append("::text[], ")
            statement.bind(documents)
            statement.append("::text[]) AS row(key, doc)")
        }
        try await storage.client.run(statement.query, logger: PostgresTestDatabase.logger)
    }

    /// Each hot-path read, run through the store with realistic values, and the statements it issued.
    func hotPaths(on storage: PostgresDiaryStorage) async throws -> [(String, [SQLStatement])] {
        let someone = user(1_234)
        let busyPost = post(7_920)
        let viewerFilter = RowFilter(viewer: someone, hiddenNamedAuthors: [user(5), user(6)], hiddenAnonymousAuthors: [user(7)])
        let cursor = SortKey(micros: Int64(date(20_000).timeIntervalSince1970 * 1_000_000), id: post(20_000).rawValue)
        let month = LocalDate(date(4_000 * 300), in: utc).yearMonth
        typealias Read = @Sendable (any StorageReader) async throws -> Void
        let reads: [(String, Read)] = [
            ("user by id", { _ = try await $0.user(someone) }),
            ("post by id", { _ = try await $0.post(busyPost) }),
            ("like exists", { _ = try await $0.contains(.like(someone, busyPost)) }),
            ("membership exists", { _ = try await $0.contains(.membership(book(17), user(17))) }),
            ("block exists", { _ = try await $0.contains(.block(someone, user(3))) }),
            ("user by nickname (unique)", { _ = try await $0.rows(StorageSchema.usersByNickname, equalTo: Validation.nicknameKey("user1234")) }),
            ("book by invite code (unique)", { _ = try await $0.rows(StorageSchema.booksByInviteCode, equalTo: "CODE0017") }),
            ("feed, first page", { _ = try await $0.page(StorageSchema.feed, Everything(), descending: true, from: .start, limit: 21, where: viewerFilter) }),
            ("feed, page after a cursor", { _ = try await $0.page(StorageSchema.feed, Everything(), descending: true, from: .after(cursor), limit: 21, where: viewerFilter) }),
            ("a user's posts after a cursor", { _ = try await $0.page(StorageSchema.postsOfAuthor, someone, descending: true, from: .after(cursor), limit: 21, where: .none) }),
            ("a user's likes", { _ = try await $0.page(StorageSchema.likesOfUser, someone, descending: true, from: .start, limit: 21, where: .none) }),
            ("a user's entries", { _ = try await $0.page(StorageSchema.entriesOfAuthor, someone, descending: true, from: .start, limit: 21, where: .none) }),
            ("a user's month of entries", { _ = try await $0.rows(StorageSchema.diariesByAuthorMonth, equalTo: AuthorMonth(authorID: someone, month: month)) }),
            ("a user's month of posts", { _ = try await $0.rows(StorageSchema.postsByAuthorMonth, equalTo: AuthorMonth(authorID: someone, month: month)) }),
            ("like count of a post", { _ = try await $0.count(StorageSchema.likesByPost, equalTo: busyPost, where: .none) }),
            ("comment count of a post", { _ = try await $0.count(StorageSchema.commentsByTarget, equalTo: .post(busyPost), where: viewerFilter) }),
            ("comments of a post", { _ = try await $0.rows(StorageSchema.commentsByTarget, equalTo: .post(post(98))) }),
            ("post count of a user", { _ = try await $0.count(StorageSchema.postsOfAuthor, someone, where: .none) }),
            ("memberships of a user", { _ = try await $0.rows(StorageSchema.membershipsByUser, equalTo: user(17)) }),
            ("members of a book", { _ = try await $0.rows(StorageSchema.membershipsByBook, equalTo: book(17)) }),
            ("entries of a book", { _ = try await $0.rows(StorageSchema.diariesByBook, equalTo: book(17)) }),
            ("blocks by a user", { _ = try await $0.rows(StorageSchema.blocksByBlocker, equalTo: someone) }),
            ("blocks of a user", { _ = try await $0.rows(StorageSchema.blocksByBlocked, equalTo: someone) }),
            ("followers of a user", { _ = try await $0.rows(StorageSchema.followsByFollowed, equalTo: someone) }),
            ("posts with a tag", { _ = try await $0.rows(StorageSchema.postsByTag, equalTo: "tag7") }),
            ("search by words", {
                _ = try await $0.searchPosts(PostTextQuery(words: ["garden", "post2345"], tags: []), from: .start, limit: 21, where: viewerFilter)
            }),
            ("search by a tag after a cursor", {
                _ = try await $0.searchPosts(PostTextQuery(words: [], tags: ["tag7"]), from: .after(cursor), limit: 21, where: viewerFilter)
            }),
            ("a page's like counts (batched)", {
                _ = try await $0.counts(StorageSchema.likesByPost, equalToAnyOf: (7_900..<7_920).map(post), where: viewerFilter)
            }),
            ("a page's comment counts (batched)", {
                _ = try await $0.counts(StorageSchema.commentsByTarget, equalToAnyOf: (80..<100).map { .post(post($0)) }, where: .none)
            }),
            ("a page's comments (batched)", {
                _ = try await $0.rows(StorageSchema.commentsByTarget, equalToAnyOf: (80..<100).map { .post(post($0)) })
            }),
            ("a page's likes by the viewer and authors (batched)", {
                _ = try await $0.records((7_900..<7_920).map { .like(someone, post($0)) } + (1..<21).map { .user(user($0)) })
            }),
            ("a viewer's blocks both ways (batched)", {
                _ = try await $0.rows(
                    ofEach: [StorageSchema.blocksByBlocker, StorageSchema.blocksByBlocked, StorageSchema.anonymousBlocksByBlocker],
                    equalTo: someone)
            }),
            ("a viewer's row, blocks and an author's row (one batch)", {
                var batch = StorageReadBatch()
                _ = batch.records([.user(someone), .user(user(17))])
                for index in [StorageSchema.blocksByBlocker, StorageSchema.blocksByBlocked, StorageSchema.anonymousBlocksByBlocker] {
                    _ = batch.rows(index, equalToAnyOf: [someone])
                }
                _ = try await $0.read(batch)
            }),
            ("what a page shows beside its posts (one batch)", {
                var batch = StorageReadBatch()
                let posts = (7_900..<7_920).map(post)
                _ = batch.counts(StorageSchema.likesByPost, equalToAnyOf: posts, where: viewerFilter)
                _ = batch.rows(StorageSchema.commentsByTarget, equalToAnyOf: posts.map { .post($0) })
                _ = batch.counts(StorageSchema.commentsByTarget, equalToAnyOf: posts.map { .post($0) }, where: .none)
                _ = batch.records(posts.map { .like(someone, $0) } + (1..<21).map { .user(user($0)) })
                _ = try await $0.read(batch)
            }),
            ("search count", { _ = try await $0.countPosts(matching: PostTextQuery(words: ["post2345"], tags: []), where: viewerFilter) }),
        ]
        var paths: [(String, [SQLStatement])] = []
        for (name, read) in reads {
            let log = SQLStatementLog()
            try await SQLStatementLog.$current.withValue(log) {
                try await storage.read("test.plan") { try await read($0) }
            }
            paths.append((name, log.statements))
        }
        return paths
    }
}
