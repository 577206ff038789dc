@_spi(Storage) @testable import DiarySDK
import DiarySDKConformance
import Foundation
import Testing

@Suite("Sorted key index")
struct SortedKeyIndexTests {
    /// Keys from a small space, so inserts collide and removals hit.
    private func key(_ generator: inout SeededRandomGenerator) -> SortKey {
        let micros = Int64(generator.next() % 5_000)
        let last = UInt8(generator.next() % 3)
        return SortKey(micros: micros, id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last)))
    }

    /// Checks the index against a sorted array holding the same keys.
    private func expectMatches(_ index: SortedKeyIndex, _ model: [SortKey], probes: [SortKey]) {
        #expect(index.count == model.count)
        #expect(Array(index.keys(descending: false)) == model)
        #expect(Array(index.keys(descending: true)) == model.reversed())
        for probe in probes {
            #expect(index.contains(probe) == model.contains(probe))
            #expect(Array(index.keys(descending: false, after: probe)) == model.filter { $0 > probe })
            #expect(Array(index.keys(descending: true, after: probe)) == model.filter { $0 < probe }.reversed())
        }
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func randomInsertsAndRemovalsKeepTheOrder(seed: UInt64) {
        var generator = SeededRandomGenerator(seed: seed)
        var index = SortedKeyIndex()
        var model: Set<SortKey> = []
        for step in 0..<6_000 {
            let candidate = key(&generator)
            // Mostly inserts early on, then mostly removals, so chunks split and then merge and disappear.
            if generator.next() % 10 < (step < 4_000 ? 8 : 2) {
                let inserted = index.insert(candidate)
                #expect(inserted == model.insert(candidate).inserted)
            } else {
                let removed = index.remove(candidate)
                #expect(removed == (model.remove(candidate) != nil))
            }
        }
        let probes = (0..<40).map { _ in key(&generator) }
        expectMatches(index, model.sorted(), probes: probes)
    }

    @Test func batchesMergeLikeSingleInserts() {
        var generator = SeededRandomGenerator(seed: 9)
        var batched = SortedKeyIndex()
        var single = SortedKeyIndex()
        for size in [3, 700, 5, 2_000, 70] {
            let keys = (0..<size).map { _ in key(&generator) }
            batched.insert(contentsOf: keys)
            for key in keys { single.insert(key) }
            #expect(batched == single)
        }
        expectMatches(batched, Array(single.keys(descending: false)), probes: (0..<20).map { _ in key(&generator) })
    }

    @Test func sortedAndUnsortedInitialisersAgree() {
        var generator = SeededRandomGenerator(seed: 4)
        let keys = (0..<3_000).map { _ in key(&generator) }
        let unique = Array(Set(keys)).sorted()
        #expect(SortedKeyIndex(unsorted: keys) == SortedKeyIndex(sorted: unique))
        expectMatches(SortedKeyIndex(unsorted: keys), unique, probes: Array(keys.prefix(20)))
    }

    @Test func anEmptyIndexHasNoKeysInEitherDirection() {
        let index = SortedKeyIndex()
        let probe = SortKey(micros: 1, id: UUID())
        #expect(Array(index.keys(descending: true, after: probe)).isEmpty)
        #expect(Array(index.keys(descending: false)).isEmpty)
        #expect(!index.contains(probe))
        var copy = index
        let removed = copy.remove(probe)
        #expect(!removed)
    }

    @Test func aCopyIsUnchangedByMutationsOfTheOriginal() {
        var generator = SeededRandomGenerator(seed: 5)
        var index = SortedKeyIndex(unsorted: (0..<2_000).map { _ in key(&generator) })
        let copy = index
        let before = Array(copy.keys(descending: false))
        for key in before.prefix(500) { index.remove(key) }
        index.insert(contentsOf: (0..<1_000).map { _ in key(&generator) })
        #expect(Array(copy.keys(descending: false)) == before)
    }
}

@Suite("Database bulk loading")
struct DatabaseBulkLoadTests {
    @Test func loadingABatchBuildsTheSameIndicesAsPuttingRowsOneByOne() throws {
        var generator = SeededRandomGenerator(seed: 11)
        let authors = (0..<3).map { User(id: User.ID(UUID()), nickname: "author\($0)", createdAt: Date(timeIntervalSince1970: 0)) }
        var rows: [StoreRecord] = authors.map(StoreRecord.user)
        var diaries: [Diary] = []
        for index in 0..<1_500 {
            let created = Date(timeIntervalSince1970: 1_700_000_000 + Double(generator.next() % 50_000_000))
            let tags = ["til", "swift", "Rain"].filter { _ in generator.next() % 2 == 0 }
            diaries.append(
                Diary(
                    id: Diary.ID(UUID()), authorID: authors[index % 3].id,
                    day: LocalDate(created, in: TimeZone(identifier: "Asia/Seoul")!), title: "", body: "entry \(index)",
                    tags: tags, createdAt: created, updatedAt: created))
        }
        rows += diaries.map(StoreRecord.diary)
        // A replacement inside the batch: the same entry again, moved to another day and retagged.
        var moved = diaries[10]
        moved.day = LocalDate(year: 2001, month: 1, day: 1)!
        moved.tags = ["moved"]
        rows.append(.diary(moved))

        var bulk = LocalDatabase()
        bulk.put(contentsOf: rows)
        var single = LocalDatabase()
        for row in rows { single.put(row) }

        #expect(bulk.allRecords == single.allRecords)
        func listed(_ db: LocalDatabase, _ partition: AuthorTag) throws -> [Diary.ID] {
            try db.page(
                StorageSchema.entriesOfAuthorTag, partition, descending: false, from: .start, limit: .max, where: .none
            ).map(\.id)
        }
        for author in authors {
            let all = try bulk.page(
                StorageSchema.entriesOfAuthor, author.id, descending: false, from: .start, limit: .max, where: .none)
            let allSingle = try single.page(
                StorageSchema.entriesOfAuthor, author.id, descending: false, from: .start, limit: .max, where: .none)
            #expect(all == allSingle)
            #expect(all.map(StorageSchema.diaryListingKey) == all.map(StorageSchema.diaryListingKey).sorted())
            for tag in ["til", "swift", "rain", "moved"] {
                let partition = AuthorTag(authorID: author.id, tag: tag)
                #expect(try listed(bulk, partition) == listed(single, partition))
            }
        }
        #expect(try listed(bulk, AuthorTag(authorID: moved.authorID, tag: "moved")) == [moved.id])
        var total = 0
        for author in authors {
            total += try bulk.count(StorageSchema.entriesOfAuthor, author.id, where: .none)
        }
        #expect(total == diaries.count)
        let rain = AuthorTag(authorID: authors[0].id, tag: "rain")
        #expect(try listed(bulk, rain).count == diaries.filter {
            $0.authorID == authors[0].id && $0.tags.contains("Rain") && $0.id != moved.id
        }.count)
    }
}
