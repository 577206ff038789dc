@_spi(Storage) @testable import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

/// Checks ``LocalDatabase`` against a brute-force evaluation over its rows: every declared index and listing, every
/// count and the text search, after seeded random sequences of puts and removes of every kind.
@Suite("Local database model")
struct LocalDatabaseModelTests {
    @Test(arguments: [1 as UInt64, 2, 3])
    func everyIndexListingCountAndSearchAgreesWithABruteForceEvaluation(seed: UInt64) throws {
        var random = RandomStoreRecords(seed: seed)
        var database = LocalDatabase()
        var model: [RecordKey: StoreRecord] = [:]
        var everPut: [StoreRecord] = []
        for _ in 1...2 {
            randomWrites(300, to: &database, model: &model, everPut: &everPut, random: &random)
            try check(database, model: model, everPut: everPut, random: &random)
        }
        // Loading the rows in one batch builds the same indices.
        var loaded = LocalDatabase()
        loaded.put(contentsOf: database.allRecords.shuffled(using: &random.random))
        try check(loaded, model: model, everPut: everPut, random: &random)
    }

    @Test(arguments: [4 as UInt64, 5])
    func aTextIndexBuiltOnASnapshotAndCaughtUpWithLaterWritesAgreesWithABruteForceEvaluation(seed: UInt64) throws {
        var random = RandomStoreRecords(seed: seed)
        var model: [RecordKey: StoreRecord] = [:]
        var everPut: [StoreRecord] = []
        var database = LocalDatabase()
        randomWrites(300, to: &database, model: &model, everPut: &everPut, random: &random)
        var deferred = LocalDatabase(indexingPostText: false)
        deferred.put(contentsOf: database.allRecords)
        // Without its text index the database searches by reading the posts.
        try check(deferred, model: model, everPut: everPut, random: &random)
        let snapshot = deferred
        let since = randomWrites(300, to: &deferred, model: &model, everPut: &everPut, random: &random)
        deferred.installPostTextIndex(snapshot.makePostTextIndex(), replaying: since)
        try check(deferred, model: model, everPut: everPut, random: &random)
    }

    /// Random puts and removes of every kind, applied to the database and the model alike.
    @discardableResult
    private func randomWrites(
        _ count: Int, to database: inout LocalDatabase, model: inout [RecordKey: StoreRecord],
        everPut: inout [StoreRecord], random: inout RandomStoreRecords
    ) -> [StoreMutation] {
        var mutations: [StoreMutation] = []
        for _ in 0..<count {
            if random.chance(25), !model.isEmpty {
                let key = random.chance(80) ? random.pick(Array(model.keys)) : random.record().key
                let removed = database.remove(key)
                #expect(removed == model.removeValue(forKey: key))
                if let removed { mutations.append(StoreMutation(before: removed, after: nil)) }
            } else {
                let record = random.record()
                everPut.append(record)
                let replaced = database.put(record)
                #expect(replaced == model.updateValue(record, forKey: record.key))
                if replaced != record { mutations.append(StoreMutation(before: replaced, after: record)) }
            }
        }
        return mutations
    }

    @Test func eachKindsTablePositionIsItsPlaceInAllCases() {
        // The indices and listings of a table are found by this position (`LocalSchema.indicesOfTable`).
        for (position, kind) in RecordKind.allCases.enumerated() {
            #expect(LocalSchema.tablePosition(kind) == position, "\(kind)")
        }
    }

    @Test func aBatchThatReplacesRowsItAlreadyHoldsKeepsOnlyTheLastOfEach() throws {
        var random = RandomStoreRecords(seed: 9)
        let records = (0..<500).map { _ in random.record() }
        var model: [RecordKey: StoreRecord] = [:]
        for record in records { model[record.key] = record }
        var loaded = LocalDatabase()
        loaded.put(contentsOf: records)
        try check(loaded, model: model, everPut: records, random: &random)
    }

    /// A batch onto a database that already holds rows: rows of the batch replace rows filed one by one before, and
    /// the batch's new rows are filed in the indices in one pass between those replacements.
    @Test func aBatchOntoAFilledDatabaseReplacesAndAddsRowsAsSinglePutsWould() throws {
        var random = RandomStoreRecords(seed: 11)
        var model: [RecordKey: StoreRecord] = [:]
        var everPut: [StoreRecord] = []
        var database = LocalDatabase()
        randomWrites(300, to: &database, model: &model, everPut: &everPut, random: &random)
        // Drawn from the same small pools of ids, so many rows of the batch replace rows the database holds.
        let batch = (0..<400).map { _ in random.record() }
        let replacing = batch.filter { model[$0.key] != nil && model[$0.key] != $0 }.count
        #expect(replacing > 20, "the batch replaces only \(replacing) rows")
        for record in batch { model[record.key] = record }
        everPut += batch
        database.put(contentsOf: batch)
        try check(database, model: model, everPut: everPut, random: &random)
    }

    private func check(
        _ database: LocalDatabase, model: [RecordKey: StoreRecord], everPut: [StoreRecord],
        random: inout RandomStoreRecords
    ) throws {
        let rows = Array(model.values)
        #expect(database.rowCount == model.count)
        #expect(Set(database.allRecords) == Set(rows))
        #expect(database.allRecords.map(\.key) == model.keys.sorted(by: LocalRecordOrder.areInIncreasingOrder))
        for record in everPut { #expect(database.record(for: record.key) == model[record.key]) }
        for index in StorageSchema.allIndices {
            try #require(index as? any CheckedIndex).check(database, rows: rows, everPut: everPut)
        }
        for listing in StorageSchema.allListings {
            try #require(listing as? any CheckedListing).check(database, rows: rows, everPut: everPut)
        }
        try checkSearch(database, rows: rows)
    }

    private func checkSearch(_ database: LocalDatabase, rows: [StoreRecord]) throws {
        let posts = rows.compactMap { if case .post(let post) = $0 { post } else { nil } }
            .sorted { feedKey($0) > feedKey($1) }
        let texts = [
            "", "swift", "caf", "CAFÉ", "e", "ab", "abcd", "don't", "don’t", "e-mail", "-", "...", "zzzq", "日本", "本語",
            "hello world", "wor", "<b>", "bold", "&", "amp", "hidden", "c++", "a.b", "fine", "abc", "\u{AC00}",
            "ello orld", "swift x",
        ]
        let tagSets: [[String]] = [[], ["swift"], ["c++"], ["travel", "swift"], ["nomatch"]]
        let bounds = posts.map(feedKey) + [SortKey(micros: 500_000_000_000, id: UUID())]
        for text in texts {
            for tags in tagSets {
                let query = PostTextQuery(words: SearchText.words(of: text), tags: tags)
                for filter in RandomStoreRecords.filters {
                    let expected = posts.filter { query.matches($0) && filter.admits(StorageSchema.authorship($0)) }
                    #expect(try database.countPosts(matching: query, where: filter) == expected.count, "\(query)")
                    for limit in [2, 1_000] {
                        #expect(
                            try database.searchPosts(query, from: .start, limit: limit, where: filter)
                                == Array(expected.prefix(limit)), "\(query) \(filter)")
                        for offset in [1, expected.count] {
                            #expect(
                                try database.searchPosts(query, from: .offset(offset), limit: limit, where: filter)
                                    == Array(expected.dropFirst(offset).prefix(limit)), "\(query) offset \(offset)")
                        }
                    }
                    for bound in bounds.prefix(4) + bounds.suffix(2) {
                        #expect(
                            try database.searchPosts(query, from: .after(bound), limit: 3, where: filter)
                                == Array(expected.filter { feedKey($0) < bound }.prefix(3)), "\(query) after")
                    }
                }
            }
        }
    }

    private func feedKey(_ post: PostRecord) -> SortKey {
        StorageSchema.feed.entries(post)[0].key
    }
}

/// A declared index checked against the rows it indexes.
private protocol CheckedIndex {
    func check(_ database: LocalDatabase, rows: [StoreRecord], everPut: [StoreRecord]) throws
}

extension StorageIndex: CheckedIndex {
    fileprivate func check(_ database: LocalDatabase, rows: [StoreRecord], everPut: [StoreRecord]) throws {
        let tableRows = rows.compactMap(table.unwrap)
        // Values of rows since removed or replaced too, which must no longer find them.
        for value in Set(everPut.compactMap(table.unwrap).flatMap(values)) {
            let expected = tableRows.filter { values($0).contains(value) }
            let found = try database.rows(self, equalTo: value)
            #expect(found.count == expected.count, "\(name) \(value)")
            #expect(Set(found.map(table.wrap)) == Set(expected.map(table.wrap)), "\(name) \(value)")
            for filter in RandomStoreRecords.filters {
                let passing = author.map { author in expected.filter { filter.admits(author($0)) } } ?? expected
                #expect(try database.count(self, equalTo: value, where: filter) == passing.count, "\(name) \(filter)")
            }
        }
    }
}

/// A declared listing checked against the rows it lists.
private protocol CheckedListing {
    func check(_ database: LocalDatabase, rows: [StoreRecord], everPut: [StoreRecord]) throws
}

extension StorageListing: CheckedListing {
    fileprivate func check(_ database: LocalDatabase, rows: [StoreRecord], everPut: [StoreRecord]) throws {
        let tableRows = rows.compactMap(table.unwrap)
        for partition in Set(everPut.compactMap(table.unwrap).flatMap { entries($0).map(\.partition) }) {
            let listed = tableRows.flatMap { row in
                entries(row).filter { $0.partition == partition }.map { (key: $0.key, row: row) }
            }.sorted { $0.key < $1.key }
            #expect(Set(listed.map(\.key)).count == listed.count, "\(name): keys are unique")
            let bounds = listed.map(\.key) + [SortKey(micros: 0, id: UUID()), SortKey(micros: 500_000_000_000, id: UUID())]
            for filter in RandomStoreRecords.filters {
                let passing = listed.filter { entry in author.map { filter.admits($0(entry.row)) } ?? true }
                #expect(try database.count(self, partition, where: filter) == passing.count, "\(name) \(filter)")
                for descending in [false, true] {
                    let ordered = descending ? passing.reversed() : passing
                    func page(_ position: ListingPosition, _ limit: Int) throws -> [StoreRecord] {
                        try database.page(
                            self, partition, descending: descending, from: position, limit: limit, where: filter
                        ).map(table.wrap)
                    }
                    for limit in [1, 3, 1_000] {
                        #expect(try page(.start, limit) == ordered.prefix(limit).map { table.wrap($0.row) }, "\(name)")
                        for offset in [0, 1, 2, ordered.count - 1, ordered.count, ordered.count + 1] where offset >= 0 {
                            #expect(
                                try page(.offset(offset), limit)
                                    == ordered.dropFirst(offset).prefix(limit).map { table.wrap($0.row) },
                                "\(name) offset \(offset)")
                        }
                    }
                    for bound in bounds {
                        let after = ordered.filter { descending ? $0.key < bound : $0.key > bound }
                        #expect(try page(.after(bound), 2) == after.prefix(2).map { table.wrap($0.row) }, "\(name) after")
                    }
                }
            }
        }
    }
}
