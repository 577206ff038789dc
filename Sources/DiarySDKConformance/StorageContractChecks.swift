@_spi(Storage) import DiarySDK
import Foundation

/// Checks of the storage contract itself, below the rules: what the engine relies on from any ``DiaryStorage``,
/// run on the stores of this package and on yours.
///
/// ```swift
/// @Test func batchedReadsAgree() async throws {
///     try await StorageContractChecks.batchedReadsAgreeWithSingleReads(on: try await MyStorage.empty())
/// }
/// ```
@_spi(Storage)
public enum StorageContractChecks {
    /// The batched reads (``StorageReader/records(_:)``, ``StorageReader/rows(_:equalToAnyOf:)``,
    /// ``StorageReader/rows(ofEach:equalTo:)`` and ``StorageReader/counts(_:equalToAnyOf:where:)``) and the scan
    /// ``StorageReader/forEachRow(_:equalTo:_:)`` answer exactly what the one-at-a-time reads answer, for present and missing keys, repeated values, a row filed under several
    /// values, and every kind of ``RowFilter``; inside a read, and inside a write, which sees its own changes.
    /// - Parameter storage: An empty storage; the check writes a few dozen rows to it.
    /// - Throws: A failure naming the first read that disagrees.
    public static func batchedReadsAgreeWithSingleReads(on storage: any DiaryStorage) async throws {
        let data = ContractData()
        try await storage.write("contract.seed") { transaction in
            for record in data.records { try await transaction.put(record) }
        }
        try await storage.read("contract.batched") { reader in try await data.compare(in: reader) }
        try await storage.write("contract.batchedInWrite") { transaction in
            // Changes the body has made and not committed are read back by the batched reads too.
            try await transaction.put(data.extraLike)
            let removed = RecordKey.like(data.user(2), data.post(2))
            try await transaction.remove(removed)
            try await transaction.put(.block(EdgeRecord(from: data.user(1), to: data.user(6), createdAt: data.epoch)))
            try await data.compare(in: transaction)
            let seen = try await transaction.records([data.extraLike.key, removed])
            try expect(seen[data.extraLike.key] == data.extraLike, "a write's batched read does not see the like the write added")
            try expect(seen[removed] == nil, "a write's batched read still sees the like the write removed")
            let likes = try await transaction.counts(StorageSchema.likesByPost, equalToAnyOf: [data.post(2), data.post(12)], where: .none)
            try expect(likes == [data.post(2): 1, data.post(12): 1], "a write's batched count answered \(likes)")
        }
        let empty = try await storage.read("contract.empty") { reader in
            (try await reader.records([]).count,
             try await reader.rows(StorageSchema.commentsByTarget, equalToAnyOf: []).count,
             try await reader.counts(StorageSchema.likesByPost, equalToAnyOf: [], where: .none).count,
             try await reader.rows(ofEach: [] as [StorageIndex<EdgeRecord, User.ID>], equalTo: data.user(1)).count)
        }
        try expect(empty == (0, 0, 0, 0), "batched reads of nothing answered \(empty)")
    }
}

/// Six users, twelve posts (some anonymous, some sharing tags), likes, comments with replies, blocks both ways and
/// anonymous blocks.
private struct ContractData: Sendable {
    let epoch = Date(timeIntervalSince1970: 1_780_000_000)
    let utc = TimeZone(identifier: "UTC") ?? .current

    func id<Entity>(_ number: Int) -> EntityID<Entity> {
        let suffix = String(number)
        let padded = String(repeating: "0", count: max(0, 12 - suffix.count)) + suffix
        return EntityID(rawValue: UUID(uuidString: "00000000-0000-4000-8000-\(padded)") ?? UUID())
    }
    func user(_ number: Int) -> User.ID { id(number) }
    func post(_ number: Int) -> Post.ID { id(100 + number) }
    func comment(_ number: Int) -> Comment.ID { id(200 + number) }
    func date(_ offset: Int) -> Date { epoch.addingTimeInterval(Double(offset)) }

    var users: [User.ID] { (1...6).map(user) }
    var posts: [Post.ID] { (1...12).map(post) }

    var records: [StoreRecord] {
        var records: [StoreRecord] = users.enumerated().map { number, id in
            .user(User(id: id, nickname: "contract\(number)", createdAt: date(number)))
        }
        for number in 1...12 {
            records.append(.post(PostRecord(
                id: post(number), authorID: user(1 + number % 6), isAnonymous: number % 4 == 0, title: "Post \(number)",
                body: "body", tags: number % 3 == 0 ? ["shared", "three"] : ["shared"], images: [], source: .original,
                day: LocalDate(date(number), in: utc), createdAt: date(number), updatedAt: date(number))))
        }
        // Post n is liked by users 1…(n % 6); post 12 by nobody.
        for number in 1...11 {
            for liker in 1...max(1, number % 6) {
                records.append(.like(LikeRecord(userID: user(liker), postID: post(number), createdAt: date(liker))))
            }
        }
        for number in 1...20 {
            let target = CommentTarget.post(post(1 + number % 5))
            // Every third comment replies to the one before it, on the same post.
            let parent = number % 3 == 0 ? comment(number - 1) : nil
            records.append(.comment(CommentRecord(
                id: comment(number), target: parent == nil ? target : CommentTarget.post(post(1 + (number - 1) % 5)),
                parentID: parent, authorID: user(1 + number % 6), isAnonymous: number % 5 == 0, body: "c\(number)",
                mood: nil, createdAt: date(number), updatedAt: date(number))))
        }
        records.append(.block(EdgeRecord(from: user(1), to: user(2), createdAt: epoch)))
        records.append(.block(EdgeRecord(from: user(3), to: user(1), createdAt: epoch)))
        records.append(.block(EdgeRecord(from: user(1), to: user(4), createdAt: epoch)))
        records.append(.anonymousBlock(EdgeRecord(from: user(1), to: user(5), createdAt: epoch)))
        return records
    }

    var extraLike: StoreRecord { .like(LikeRecord(userID: user(6), postID: post(12), createdAt: epoch)) }

    var filters: [RowFilter] {
        [
            .none,
            RowFilter(viewer: user(1), hiddenNamedAuthors: [user(2), user(3)], hiddenAnonymousAuthors: [user(5)]),
            RowFilter(viewer: user(2), hiddenNamedAuthors: [user(1)], includesAnonymous: false),
            RowFilter(viewer: nil, hiddenAnonymousAuthors: [user(4), user(6)]),
        ]
    }

    /// Compares every batched read with the single reads it stands for.
    func compare(in reader: any StorageReader) async throws {
        // Records: present and missing keys of several tables, one key twice.
        var keys: [RecordKey] = users.map { .user($0) } + [.user(id(99)), .user(user(1))]
        keys += posts.prefix(6).map { .like(user(1), $0) } + posts.map { .like(user(6), $0) }
        keys += [.comment(comment(3)), .comment(comment(999)), .block(user(1), user(2)), .post(post(4))]
        let batched = try await reader.records(keys)
        for key in Set(keys) {
            let single = try await reader.record(key)
            try expect(batched[key] == single, "records(_:) answered \(String(describing: batched[key])) for \(key), record(_:) \(String(describing: single))")
        }
        try expect(Set(batched.keys).isSubset(of: Set(keys)), "records(_:) answered keys it was not asked for")

        // Rows: a single-valued index, a multi-valued one (a post with two tags is found once), a value with none.
        let targets = posts.prefix(6).map(CommentTarget.post) + [.post(post(1)), .post(id(999))]
        try await compareRows(StorageSchema.commentsByTarget, targets, in: reader)
        try await compareRows(StorageSchema.postsByTag, ["shared", "three", "three", "none"], in: reader)
        try await compareRows(StorageSchema.commentsByParent, (1...20).map(comment), in: reader)

        // Several indices with one value.
        let blockIndices = [
            StorageSchema.blocksByBlocker, StorageSchema.blocksByBlocked, StorageSchema.anonymousBlocksByBlocker,
            StorageSchema.blocksByBlocker,
        ]
        for viewer in users + [id(99)] {
            let each = try await reader.rows(ofEach: blockIndices, equalTo: viewer)
            try expect(each.count == blockIndices.count, "rows(ofEach:) answered \(each.count) lists for \(blockIndices.count) indices")
            for (index, rows) in zip(blockIndices, each) {
                let single = try await reader.rows(index, equalTo: viewer)
                try expect(
                    Self.keys(rows, index.table) == Self.keys(single, index.table) && rows.count == single.count,
                    "rows(ofEach:) answered \(rows.count) rows of \(index.name) for \(viewer), rows(_:equalTo:) \(single.count)")
            }
        }

        // Counts: filtered (likes by who liked) and unfiltered, with a value asked twice and one with none.
        let likedPosts = posts + [post(1), id(999)]
        for filter in filters {
            try await compareCounts(StorageSchema.likesByPost, likedPosts, filter, in: reader)
        }
        try await compareCounts(StorageSchema.commentsByTarget, targets, .none, in: reader)
        try await compareCounts(StorageSchema.postsByTag, ["shared", "three", "none"], .none, in: reader)

        try await compareBatch(keys: keys, targets: targets, likedPosts: likedPosts, in: reader)
    }

    /// One ``StorageReadBatch`` of every shape (and empty parts, and one shape twice) against the reads it stands
    /// for.
    private func compareBatch(
        keys: [RecordKey], targets: [CommentTarget], likedPosts: [Post.ID], in reader: any StorageReader
    ) async throws {
        var batch = StorageReadBatch()
        let records = batch.records(keys)
        let noRecords = batch.records([])
        let comments = batch.rows(StorageSchema.commentsByTarget, equalToAnyOf: targets)
        let tagged = batch.rows(StorageSchema.postsByTag, equalToAnyOf: ["shared", "three", "three", "none"])
        let noRows = batch.rows(StorageSchema.blocksByBlocker, equalToAnyOf: [])
        let blocks = [StorageSchema.blocksByBlocker, StorageSchema.blocksByBlocked, StorageSchema.anonymousBlocksByBlocker]
            .map { batch.rows($0, equalToAnyOf: [user(1)]) }
        let likeCounts = filters.map { batch.counts(StorageSchema.likesByPost, equalToAnyOf: likedPosts, where: $0) }
        let commentCounts = batch.counts(StorageSchema.commentsByTarget, equalToAnyOf: targets, where: .none)
        let noCounts = batch.counts(StorageSchema.likesByPost, equalToAnyOf: [], where: .none)
        try expect(batch.parts.count == 14, "a batch of 14 reads has \(batch.parts.count) parts")
        let answers = try await reader.read(batch)

        try expect(try answers[records] == (try await reader.records(keys)), "read(_:) answered other records than records(_:)")
        try expect(try answers[noRecords].isEmpty, "read(_:) found records for no keys")
        let byTarget = try answers[comments]
        let singleByTarget = try await reader.rows(StorageSchema.commentsByTarget, equalToAnyOf: targets)
        try expect(
            byTarget.count == singleByTarget.count
                && Self.keys(byTarget, StorageSchema.comments) == Self.keys(singleByTarget, StorageSchema.comments),
            "read(_:) answered \(byTarget.count) comments by target, rows(_:equalToAnyOf:) \(singleByTarget.count)")
        let tags = try answers[tagged]
        let singleTags = try await reader.rows(StorageSchema.postsByTag, equalToAnyOf: ["shared", "three", "none"])
        try expect(
            tags.count == singleTags.count && Self.keys(tags, StorageSchema.posts) == Self.keys(singleTags, StorageSchema.posts),
            "read(_:) answered \(tags.count) posts by tag, rows(_:equalToAnyOf:) \(singleTags.count)")
        try expect(try answers[noRows].isEmpty, "read(_:) found rows for no values")
        let singleBlocks = try await reader.rows(
            ofEach: [StorageSchema.blocksByBlocker, StorageSchema.blocksByBlocked, StorageSchema.anonymousBlocksByBlocker],
            equalTo: user(1))
        for (handle, single) in zip(blocks, singleBlocks) {
            let rows = try answers[handle]
            try expect(
                rows.count == single.count && Set(rows.map(\.to)) == Set(single.map(\.to)) && Set(rows.map(\.from)) == Set(single.map(\.from)),
                "read(_:) answered \(rows.count) block edges, rows(_:equalTo:) \(single.count)")
        }
        for (handle, filter) in zip(likeCounts, filters) {
            let single = try await reader.counts(StorageSchema.likesByPost, equalToAnyOf: likedPosts, where: filter)
            let counts = try answers[handle]
            for post in Set(likedPosts) {
                try expect(
                    (counts[post] ?? 0) == (single[post] ?? 0),
                    "read(_:) counted \(counts[post] ?? 0) likes of \(post) with \(filter), counts(_:equalToAnyOf:) \(single[post] ?? 0)")
            }
            try expect(Set(counts.keys).isSubset(of: Set(likedPosts)), "read(_:) counted values it was not asked for")
        }
        let singleComments = try await reader.counts(StorageSchema.commentsByTarget, equalToAnyOf: targets, where: .none)
        let counted = try answers[commentCounts]
        for target in Set(targets) {
            try expect(
                (counted[target] ?? 0) == (singleComments[target] ?? 0),
                "read(_:) counted \(counted[target] ?? 0) comments on \(target), counts(_:equalToAnyOf:) \(singleComments[target] ?? 0)")
        }
        try expect(try answers[noCounts].isEmpty, "read(_:) counted for no values")
    }

    private func compareRows<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, _ values: [Value], in reader: any StorageReader
    ) async throws {
        let batched = try await reader.rows(index, equalToAnyOf: values)
        var expected: [RecordKey: Row] = [:]
        for value in values {
            for row in try await reader.rows(index, equalTo: value) { expected[index.table.wrap(row).key] = row }
        }
        for value in Set(values) {
            var visited: [StoreRecord] = []
            try await reader.forEachRow(index, equalTo: value) { visited.append(index.table.wrap($0)) }
            let listed = try await reader.rows(index, equalTo: value).map(index.table.wrap)
            try expect(
                visited.count == listed.count && Set(visited) == Set(listed),
                "forEachRow(_:equalTo:) on \(index.name) visited \(visited.count) rows for \(value), rows(_:equalTo:) answered \(listed.count)")
        }
        let keys = Self.keys(batched, index.table)
        try expect(keys.count == batched.count, "rows(_:equalToAnyOf:) on \(index.name) answered a row twice")
        try expect(
            keys == Set(expected.keys),
            "rows(_:equalToAnyOf:) on \(index.name) answered \(keys.count) rows, rows(_:equalTo:) \(expected.count)")
        for row in batched {
            let record = index.table.wrap(row)
            try expect(expected[record.key].map(index.table.wrap) == record, "rows(_:equalToAnyOf:) on \(index.name) answered another \(record.key)")
        }
    }

    private func compareCounts<Row: Sendable, Value: Hashable & Sendable>(
        _ index: StorageIndex<Row, Value>, _ values: [Value], _ filter: RowFilter, in reader: any StorageReader
    ) async throws {
        let batched = try await reader.counts(index, equalToAnyOf: values, where: filter)
        try expect(Set(batched.keys).isSubset(of: Set(values)), "counts(_:equalToAnyOf:) on \(index.name) answered values it was not asked for")
        for value in Set(values) {
            let single = try await reader.count(index, equalTo: value, where: filter)
            try expect(
                (batched[value] ?? 0) == single,
                "counts(_:equalToAnyOf:) on \(index.name) answered \(batched[value] ?? 0) for \(value) with \(filter), count(_:equalTo:where:) \(single)")
        }
    }

    private static func keys<Row>(_ rows: [Row], _ table: StorageTable<Row>) -> Set<RecordKey> {
        Set(rows.map { table.wrap($0).key })
    }
}
